// The served OpenAPI document, validated as a whole. swagger-parser needs Node
// (it loads its ESM dependencies with require), so this runs beside the CLI's
// tests against the dev server rather than in workerd with the route tests
// (test/workers/api/routes/openapi.test.ts checks what the document describes).
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, inject, it } from "vitest";

type Document = Awaited<ReturnType<typeof SwaggerParser.validate>>;

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document whose references all resolve", async () => {
    const res = await fetch(`${inject("serverUrl")}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Document & { openapi: string; paths: Record<string, object> };
    expect(doc.openapi).toBe("3.1.0");
    // Throws, naming the fault, on a schema violation or a reference that resolves to nothing.
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/mcp/{ws}",
        "/llm/{ws}/openai/v1/chat/completions",
        "/llm/{ws}/anthropic/v1/messages",
      ]),
    );
  });
});
