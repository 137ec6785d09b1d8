// The generated declarations must be valid TypeScript. esbuild parses (not
// type-checks) them; the concrete type text is asserted in test/workers/api/contract.
import { describe, expect, it } from "vitest";
import { generateAdapterTypes } from "../../../../workers/api/contract/types";
import { loadEsbuild } from "../../../../workers/api/compiler/esbuild";
import { SEED_ADAPTER } from "./fixtures";

/** The JavaScript esbuild emits for `typescript`; declarations alone emit nothing. */
async function parses(typescript: string): Promise<string> {
  const esbuild = await loadEsbuild();
  return (await esbuild.transform(typescript, { loader: "ts" })).code;
}

const upstream = {
  inputSchema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      q: { type: "string", description: "Search terms */ with a comment closer" },
      "page-size": { type: "integer", minimum: 1 },
      filters: {
        type: "array",
        items: [{ type: "string" }, { anyOf: [{ type: "number" }, { type: "null" }] }],
        additionalItems: false,
      },
      sort: { enum: ["asc", "desc", null] },
      meta: { type: "object", additionalProperties: { type: ["string", "boolean"] } },
      node: { $ref: "#/definitions/node" },
    },
    required: ["q"],
    additionalProperties: false,
    definitions: {
      node: {
        type: "object",
        properties: { next: { $ref: "#/definitions/node" } },
        additionalProperties: false,
      },
    },
  },
  outputSchema: {
    type: "object",
    properties: { items: { type: "array", items: { allOf: [{ type: "object" }, { required: ["id"] }] } } },
    required: ["items"],
  },
};

describe("generateAdapterTypes output", () => {
  it("is valid TypeScript for rich upstream schemas", async () => {
    const dts = generateAdapterTypes({ ...upstream, toolName: "search" });
    expect(await parses(dts)).toBe("");
    expect(dts).toContain('"page-size"?: number;');
    expect(dts).toContain("filters?: [string?, (number | null)?];");
    expect(dts).toContain('sort?: "asc" | "desc" | null;');
    expect(dts).toContain("node?: Args_node;");
    expect(dts).toContain("type Args_node = {\n  next?: Args_node;\n};");
  });

  it("is valid TypeScript without an output schema and with odd tool names", async () => {
    expect(
      await parses(generateAdapterTypes({ inputSchema: { type: "object" }, toolName: 'a */ b\n"c' })),
    ).toBe("");
    expect(await parses(generateAdapterTypes({ inputSchema: true, toolName: "x" }))).toBe("");
  });

  it("parses together with the example adapter", async () => {
    const js = await parses(`${generateAdapterTypes({ ...upstream, toolName: "search" })}\n${SEED_ADAPTER}`);
    expect(js).toContain("export default defineToolAdapter({");
  });

  it("rejects broken TypeScript, so the checks above mean something", async () => {
    await expect(parses("type A = {")).rejects.toThrow(/Transform failed/);
  });
});
