import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openapiSchema } from "../../../../workers/api/openapi/schema";

const refsIn = (value: unknown): string[] =>
  JSON.stringify(value)
    .match(/"\$ref":"[^"]*"/g)
    ?.map((m) => m.slice(8, -1)) ?? [];

describe("openapiSchema", () => {
  it("names z.json() JsonValue, wherever zod numbered it", async () => {
    const first = await openapiSchema(z.object({ a: z.string(), b: z.json() }));
    const second = await openapiSchema(z.object({ c: z.json().optional(), d: z.json() }));
    expect(Object.keys(first.components?.schemas ?? {})).toEqual(["JsonValue"]);
    expect(Object.keys(second.components?.schemas ?? {})).toEqual(["JsonValue"]);
    expect(second.components?.schemas?.JsonValue).toEqual(first.components?.schemas?.JsonValue);
    expect(refsIn(first.schema)).toEqual(["#/components/schemas/JsonValue"]);
  });

  it("gives different recursive parts different names, so merged components never overwrite each other", async () => {
    type Tree = { children: Tree[] };
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ children: z.array(Tree) }));
    type List = { next: List | null };
    const List: z.ZodType<List> = z.lazy(() => z.object({ next: List.nullable() }));
    const a = await openapiSchema(z.object({ tree: Tree }));
    const b = await openapiSchema(z.object({ list: List }));
    const [treeName] = Object.keys(a.components?.schemas ?? {});
    const [listName] = Object.keys(b.components?.schemas ?? {});
    expect(treeName).toMatch(/^Recursive[0-9a-f]{8}$/);
    expect(listName).toMatch(/^Recursive[0-9a-f]{8}$/);
    expect(treeName).not.toBe(listName);
  });

  it("moves a schema recursive at its root into a component instead of pointing at `#`", async () => {
    const converted = await openapiSchema(z.json());
    expect(converted.schema).toEqual({ $ref: "#/components/schemas/JsonValue" });
    const refs = refsIn(converted.components);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.every((ref) => ref === "#/components/schemas/JsonValue")).toBe(true);
  });

  it("leaves schemas without recursion without components", async () => {
    const converted = await openapiSchema(z.object({ name: z.string().min(1) }).strict());
    expect(converted.schema).toMatchObject({
      type: "object",
      required: ["name"],
      additionalProperties: false,
    });
    expect(Object.keys(converted.components?.schemas ?? {})).toEqual([]);
  });
});
