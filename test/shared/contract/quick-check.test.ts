// The quick check must say "valid" exactly when @cfworker/json-schema does,
// for every schema inside its subset; outside it, it must step aside.
import { Validator, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCheck } from "../../../shared/contract/quick-check";

const DRAFTS: SchemaDraft[] = ["4", "7", "2019-09", "2020-12"];

const library = (schema: unknown, draft: SchemaDraft, value: unknown): boolean =>
  new Validator(structuredClone(schema) as Schema, draft).validate(value).valid;

// Values of the shapes tool calls carry, with the edges the keywords look at:
// integers and fractions, astral characters (counted once by minLength),
// "__proto__" as a key (an own property after JSON.parse).
const key = fc.constantFrom("a", "b", "q", "limit", "items", "__proto__", "constructor", "");
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("😀", "a😀", "\ud800", "abc", "x y"));
const number = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0.5, -0, 2.0, 1e21, -1.5),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie("json"), { maxLength: 4 }),
    fc
      .dictionary(key, tie("json"), { maxKeys: 4 })
      .map((entries) => JSON.parse(JSON.stringify(entries)) as unknown),
  ),
}));

const typeName = fc.constantFrom("object", "array", "string", "number", "integer", "boolean", "null");
const primitive = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), text);
const bound = fc.integer({ min: -1, max: 4 });
const one = <V>(name: string, value: fc.Arbitrary<V>) => value.map((v) => ({ [name]: v }));
// A schema is a few keywords (a handful is enough for most values to fail),
// nested through properties, additionalProperties and items.
const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc
      .array(
        fc.oneof(
          one("type", fc.oneof(typeName, fc.uniqueArray(typeName, { maxLength: 3 }))),
          one(
            "enum",
            fc.array(fc.oneof(primitive, fc.constant({ a: 1 }), fc.constant([1])), {
              minLength: 1,
              maxLength: 3,
            }),
          ),
          one("const", fc.oneof(primitive, fc.constant({ a: null }))),
          one("required", fc.uniqueArray(key, { maxLength: 2 })),
          one("properties", fc.dictionary(key, tie("schema"), { maxKeys: 3 })),
          one("additionalProperties", tie("schema")),
          one("items", tie("schema")),
          one("minItems", bound),
          one("maxItems", bound),
          one("uniqueItems", fc.constant(false)),
          one("minProperties", bound),
          one("maxProperties", bound),
          one("minimum", bound),
          one("maximum", bound),
          one("exclusiveMinimum", bound),
          one("exclusiveMaximum", bound),
          one("minLength", bound),
          one("maxLength", bound),
          one("pattern", fc.constantFrom("^a", "b$", "\\d", "^.$")),
          one("description", fc.string({ maxLength: 3 })),
        ),
        { maxLength: 3 },
      )
      .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>),
  ),
}));

describe("compileCheck", () => {
  it("agrees with the library on every schema of its subset, in every draft", () => {
    // The run must see plenty of both answers, or it proves nothing.
    const outcomes = { valid: 0, invalid: 0 };
    const leftOut = new Set<SchemaDraft>();
    fc.assert(
      fc.property(
        schema,
        fc.array(json, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...DRAFTS),
        (s, values, draft) => {
          const check = compileCheck(s, draft);
          if (check === null) {
            leftOut.add(draft);
            return;
          }
          for (const value of values) {
            const valid = library(s, draft, value);
            expect(check(value)).toBe(valid);
            outcomes[valid ? "valid" : "invalid"]++;
          }
        },
      ),
      { numRuns: 3000, seed: 20261130 },
    );
    expect(Math.min(outcomes.valid, outcomes.invalid)).toBeGreaterThan(2000);
    // Only draft 4's exclusive bounds leave the subset among these keywords.
    expect([...leftOut]).toEqual(["4"]);
  });

  it("agrees on the tool schemas MCP servers send", () => {
    const draft07 = "http://json-schema.org/draft-07/schema#";
    const search = {
      $schema: draft07,
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { title: { type: "string" }, score: { type: "number" } },
            required: ["title", "score"],
            additionalProperties: false,
          },
        },
      },
      required: ["items"],
      additionalProperties: false,
    };
    const cases: unknown[] = [
      { items: [] },
      { items: [{ title: "a", score: 0.5 }] },
      { items: [{ title: "a", score: "0.5" }] },
      { items: [{ title: "a", score: 1, extra: true }] },
      { items: [], more: 1 },
      {},
      [],
      JSON.parse('{"items":[],"__proto__":1}'),
    ];
    const check = compileCheck(search, "7");
    expect(check).not.toBeNull();
    for (const value of cases) expect(check?.(value)).toBe(library(search, "7", value));
  });

  it.each([
    ["$ref", { $ref: "#/$defs/a", $defs: { a: {} } }],
    ["a combinator", { anyOf: [{ type: "string" }] }],
    ["format", { type: "string", format: "email" }],
    ["patternProperties", { patternProperties: { "^a": { type: "string" } } }],
    ["a tuple", { items: [{ type: "string" }] }],
    ["uniqueItems", { uniqueItems: true }],
    ["multipleOf", { multipleOf: 0.1 }],
    ["an unknown keyword", { nullable: true }],
    ["a nested one", { properties: { a: { oneOf: [] } } }],
    ["a keyword of the wrong type", { required: "ab" }],
    ["an invalid pattern", { pattern: "(" }],
  ])("leaves a schema with %s to the library", (_what, s) => {
    expect(compileCheck(s, "2020-12")).toBeNull();
  });

  it("leaves draft 4's exclusive bounds to the library", () => {
    const s = { minimum: 1, exclusiveMinimum: true };
    expect(compileCheck(s, "4")).toBeNull();
    expect(compileCheck({ minimum: 1 }, "4")?.(1)).toBe(true);
  });

  it("steps aside for a schema nested deeper than the stack", () => {
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 200_000; i++) deep = { items: deep };
    expect(compileCheck(deep, "2020-12")).toBeNull();
  });

  it("never says valid for a value the library refuses to validate", () => {
    const check = compileCheck({}, "2020-12");
    expect(check?.(undefined)).toBe(false);
    expect(check?.({ a: 1 })).toBe(true);
  });
});
