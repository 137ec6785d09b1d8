// The identity of an upstream tool definition: which fields are hashed, and
// what stays outside the hash (the listing).
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { definitionBytes, definitionHash, toolDefinition, toolListing } from "../../../shared/mcp/definition";

const base: Tool = {
  name: "search",
  description: "Search the notes",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
};

describe("toolDefinition", () => {
  it("keeps name, description and the schemas, nothing else", () => {
    const tool: Tool = {
      ...base,
      title: "Search",
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      icons: [{ src: "https://example.com/i.png" }],
      _meta: { vendor: 1 },
    };
    expect(toolDefinition(tool)).toEqual({
      name: "search",
      description: "Search the notes",
      inputSchema: base.inputSchema,
      outputSchema: { type: "object" },
    });
  });

  it("leaves out a description and output schema the tool does not have", () => {
    const definition = toolDefinition({ name: "x", inputSchema: { type: "object" } });
    expect(Object.keys(definition).toSorted()).toEqual(["inputSchema", "name"]);
  });

  it("copies the schema objects: a later change to the listed tool does not reach it", () => {
    const inputSchema: Tool["inputSchema"] = { type: "object", required: ["q"] };
    const outputSchema: NonNullable<Tool["outputSchema"]> = { type: "object" };
    const definition = toolDefinition({ name: "x", inputSchema, outputSchema });
    inputSchema.required = ["changed"];
    outputSchema.required = ["changed"];
    expect(definition.inputSchema).toEqual({ type: "object", required: ["q"] });
    expect(definition.outputSchema).toEqual({ type: "object" });
  });
});

describe("definitionHash", () => {
  it("is lower-case hex SHA-256", async () => {
    expect(await definitionHash(toolDefinition(base))).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores fields outside the definition and the order of object members", async () => {
    const hash = await definitionHash(toolDefinition(base));
    const decorated = toolDefinition({ ...base, title: "T", annotations: { destructiveHint: true } });
    expect(await definitionHash(decorated)).toBe(hash);
    const reordered = toolDefinition({
      inputSchema: { required: ["q"], properties: { q: { type: "string" } }, type: "object" },
      description: base.description,
      name: base.name,
    });
    expect(await definitionHash(reordered)).toBe(hash);
  });

  it("changes with each hashed field", async () => {
    const hash = await definitionHash(toolDefinition(base));
    const variants: Tool[] = [
      { ...base, name: "search2" },
      { ...base, description: "Search the notes." },
      { name: base.name, inputSchema: base.inputSchema },
      { ...base, inputSchema: { ...base.inputSchema, required: [] } },
      { ...base, outputSchema: { type: "object" } },
    ];
    const hashes = await Promise.all(variants.map((tool) => definitionHash(toolDefinition(tool))));
    for (const other of hashes) expect(other).not.toBe(hash);
    expect(new Set(hashes).size).toBe(variants.length);
  });
});

describe("definitionBytes", () => {
  it("is the UTF-8 size of the definition's JSON text, counting multi-byte characters", () => {
    const ascii = toolDefinition({ ...base, description: "abc" });
    const accented = toolDefinition({ ...base, description: "äbc" });
    expect(definitionBytes(ascii)).toBe(JSON.stringify(ascii).length);
    expect(definitionBytes(accented)).toBe(definitionBytes(ascii) + 1);
    const emoji = toolDefinition({ ...base, description: "😀bc" });
    expect(definitionBytes(emoji)).toBe(definitionBytes(ascii) + 3);
  });
});

describe("toolListing", () => {
  it("is null when the tool lists nothing beside its definition", () => {
    expect(toolListing({ ...base, outputSchema: { type: "object" } })).toBeNull();
  });

  it("collects title, annotations, execution, icons and _meta", () => {
    const tool: Tool = {
      ...base,
      title: "Search",
      annotations: { readOnlyHint: true },
      execution: { taskSupport: "optional" },
      icons: [{ src: "https://example.com/i.png" }],
      _meta: { "vendor/x": 1 },
    };
    expect(toolListing(tool)).toEqual({
      title: "Search",
      annotations: { readOnlyHint: true },
      execution: { taskSupport: "optional" },
      icons: [{ src: "https://example.com/i.png" }],
      _meta: { "vendor/x": 1 },
    });
  });

  it("a single field is enough, and the rest stay absent", () => {
    expect(toolListing({ ...base, title: "Only" })).toEqual({ title: "Only" });
  });
});
