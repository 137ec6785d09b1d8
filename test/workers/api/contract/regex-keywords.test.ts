import { describe, expect, it } from "vitest";
import { findRegexKeywords } from "../../../../workers/api/contract/regex-keywords";

describe("findRegexKeywords", () => {
  it("finds pattern at the top", () => {
    expect(findRegexKeywords({ type: "string", pattern: "^a+$" })).toEqual([
      { keyword: "pattern", pointer: "/pattern" },
    ]);
  });

  it("finds pattern nested deep in items and anyOf", () => {
    const schema = {
      type: "object",
      properties: {
        list: {
          type: "array",
          items: { anyOf: [{ type: "number" }, { type: "string", pattern: "(a+)+$" }] },
        },
      },
    };
    expect(findRegexKeywords(schema)).toEqual([
      { keyword: "pattern", pointer: "/properties/list/items/anyOf/1/pattern" },
    ]);
  });

  it("finds patternProperties and format regex", () => {
    const schema = {
      type: "object",
      patternProperties: { "^x-": { type: "string" } },
      properties: { re: { type: "string", format: "regex" } },
    };
    expect(findRegexKeywords(schema)).toEqual([
      { keyword: "patternProperties", pointer: "/patternProperties" },
      { keyword: "format", pointer: "/properties/re/format" },
    ]);
  });

  it("accepts a property named pattern", () => {
    const schema = {
      type: "object",
      properties: { pattern: { type: "string" }, patternProperties: { type: "string" } },
      required: ["pattern"],
    };
    expect(findRegexKeywords(schema)).toEqual([]);
  });

  it("ignores regex-like keys in instance data (const, enum, default, examples)", () => {
    const schema = {
      type: "object",
      default: { pattern: "x" },
      examples: [{ pattern: "x" }],
      const: { pattern: "x" },
      enum: [{ pattern: "x" }],
    };
    expect(findRegexKeywords(schema)).toEqual([]);
  });

  it("looks inside unknown keywords, which a $ref can turn into schemas", () => {
    const schema = {
      type: "object",
      "x-shared": { pattern: "a*" },
      properties: { a: { $ref: "#/x-shared" } },
    };
    expect(findRegexKeywords(schema)).toEqual([{ keyword: "pattern", pointer: "/x-shared/pattern" }]);
  });

  it("finds pattern under $defs, definitions, not, if/then/else, prefixItems and dependencies", () => {
    // Parsed from text: schemas arrive as JSON, and a literal `then` member trips the thenable lint.
    const p = '{ "pattern": "." }';
    const schema: unknown = JSON.parse(`{
      "$defs": { "a": ${p} }, "definitions": { "b": ${p} }, "not": ${p},
      "if": ${p}, "then": ${p}, "else": ${p}, "prefixItems": [${p}],
      "dependencies": { "c": ${p}, "d": ["e"] }, "additionalProperties": ${p}, "propertyNames": ${p}
    }`);
    expect(
      findRegexKeywords(schema)
        .map((hit) => hit.pointer)
        .toSorted(),
    ).toEqual(
      [
        "/$defs/a/pattern",
        "/definitions/b/pattern",
        "/not/pattern",
        "/if/pattern",
        "/then/pattern",
        "/else/pattern",
        "/prefixItems/0/pattern",
        "/dependencies/c/pattern",
        "/additionalProperties/pattern",
        "/propertyNames/pattern",
      ].toSorted(),
    );
  });

  it("walks very deep schemas without overflowing the stack", () => {
    let schema: Record<string, unknown> = { type: "string", pattern: "x" };
    for (let i = 0; i < 50_000; i++) schema = { not: schema };
    expect(findRegexKeywords(schema)).toHaveLength(1);
  });
});
