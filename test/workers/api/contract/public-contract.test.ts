import { describe, expect, it } from "vitest";
import { validatePublicContract } from "../../../../workers/api/contract/public-contract";

const problemsOf = (value: unknown) => {
  const result = validatePublicContract(value);
  return result.ok ? [] : result.error;
};
const codesOf = (value: unknown) => problemsOf(value).map((p) => p.code);

const seedContract = {
  description: "Search public release notes",
  inputSchema: {
    type: "object",
    properties: { query: { type: "string" } },
    required: ["query"],
    additionalProperties: false,
  },
};

describe("validatePublicContract", () => {
  it("accepts the documented example contract unchanged", () => {
    expect(validatePublicContract(seedContract)).toEqual({ ok: true, value: seedContract });
  });

  it("accepts an empty contract and each member alone", () => {
    expect(validatePublicContract({}).ok).toBe(true);
    expect(validatePublicContract({ description: "x" }).ok).toBe(true);
    expect(validatePublicContract({ outputSchema: { type: "object" } }).ok).toBe(true);
  });

  it("requires an object", () => {
    for (const value of [null, "x", [], 1]) expect(codesOf(value)).toEqual(["invalid_public_contract"]);
  });

  it("rejects unknown members", () => {
    expect(problemsOf({ description: "x", name: "other" })).toEqual([
      expect.objectContaining({ code: "invalid_public_contract", pointer: "/name" }),
    ]);
  });

  it("requires description to be a string", () => {
    expect(problemsOf({ description: 3 })).toEqual([
      expect.objectContaining({ code: "invalid_public_contract", pointer: "/description" }),
    ]);
  });

  it("requires schemas to be objects with type object at the top", () => {
    expect(problemsOf({ inputSchema: true })[0]?.pointer).toBe("/inputSchema");
    expect(problemsOf({ inputSchema: { type: "string" } })[0]?.pointer).toBe("/inputSchema/type");
    expect(problemsOf({ outputSchema: { properties: {} } })[0]?.pointer).toBe("/outputSchema/type");
  });

  const invalidSchemas: [unknown, string][] = [
    [{ type: "object", properties: { a: { type: "strin" } } }, "/inputSchema/properties/a/type"],
    [{ type: "object", required: "a" }, "/inputSchema/required"],
    [{ type: "object", properties: [] }, "/inputSchema/properties"],
    [{ type: "object", anyOf: [] }, "/inputSchema/anyOf"],
    [{ type: "object", properties: { a: { minLength: -1 } } }, "/inputSchema/properties/a/minLength"],
    [{ type: "object", properties: { a: 5 } }, "/inputSchema/properties/a"],
    [{ type: "object", properties: { a: { $ref: "#/$defs/nope" } } }, "/inputSchema/properties/a/$ref"],
    [
      { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
      "/inputSchema/properties/a/$ref",
    ],
    [{ type: "object", $schema: "https://example.com/my-dialect" }, "/inputSchema/$schema"],
    [
      { type: "object", properties: { a: { type: "array", items: [{ type: "string" }] } } },
      "/inputSchema/properties/a/items",
    ],
  ];
  it.each(invalidSchemas)("rejects the structurally invalid schema %j at %s", (inputSchema, pointer) => {
    expect(problemsOf({ inputSchema })).toEqual([
      expect.objectContaining({ code: "invalid_public_contract", pointer }),
    ]);
  });

  it("accepts draft-07 schemas as the MCP SDK emits them, with tuple items and $ref to definitions", () => {
    const inputSchema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { id: { type: "integer", minimum: 1 } },
      properties: { ids: { type: "array", items: [{ $ref: "#/definitions/id" }] } },
      additionalProperties: false,
    };
    expect(validatePublicContract({ inputSchema }).ok).toBe(true);
  });

  it("rejects pattern nested deep in items and anyOf as regex_not_allowed", () => {
    const inputSchema = {
      type: "object",
      properties: {
        filters: {
          type: "array",
          items: {
            anyOf: [
              { type: "integer" },
              { type: "object", properties: { q: { type: "string", pattern: "(a+)+$" } } },
            ],
          },
        },
      },
    };
    expect(problemsOf({ inputSchema })).toEqual([
      expect.objectContaining({
        code: "regex_not_allowed",
        pointer: "/inputSchema/properties/filters/items/anyOf/1/properties/q/pattern",
      }),
    ]);
  });

  it("rejects patternProperties and format regex in outputSchema as regex_not_allowed", () => {
    const outputSchema = {
      type: "object",
      patternProperties: { "^a": {} },
      properties: { r: { type: "string", format: "regex" } },
    };
    expect(codesOf({ outputSchema })).toEqual(["regex_not_allowed", "regex_not_allowed"]);
  });

  it("accepts a property named pattern (a name, not the keyword)", () => {
    const inputSchema = {
      type: "object",
      properties: { pattern: { type: "string", description: "glob to match" } },
      required: ["pattern"],
    };
    expect(validatePublicContract({ inputSchema }).ok).toBe(true);
  });

  it("rejects schemas nested beyond the depth bound", () => {
    let inner: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 40; i++) inner = { type: "object", properties: { a: inner } };
    expect(codesOf({ inputSchema: inner })).toEqual(["invalid_public_contract"]);
  });
});
