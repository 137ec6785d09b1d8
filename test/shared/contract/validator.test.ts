import { beforeEach, describe, expect, it } from "vitest";
import { schemaDraft } from "../../../shared/contract/drafts";
import { clearValidatorCache, getValidator, validatorCacheSize } from "../../../shared/contract/validator";

const errorsOf = (schema: unknown, value: unknown) => {
  const result = getValidator(schema).validate(value);
  return result.ok ? [] : result.error.errors;
};

describe("getValidator", () => {
  beforeEach(() => clearValidatorCache());

  it("accepts valid and reports invalid values with JSON pointer paths", () => {
    const schema = { type: "object", properties: { query: { type: "string" } }, required: ["query"] };
    expect(getValidator(schema).validate({ query: "x" })).toEqual({ ok: true, value: undefined });
    const errors = errorsOf(schema, { query: 3 });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((e) => e.path === "/query")).toBe(true);
  });

  it("honours a draft-07 $schema (array-form items is a tuple)", () => {
    // In draft-07 `items: [..]` validates position by position; 2020-12 has no array form.
    const tuple = { type: "array", items: [{ type: "string" }, { type: "number" }] };
    const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", ...tuple };
    expect(errorsOf(draft07, ["a", 1])).toEqual([]);
    expect(errorsOf(draft07, [1, "a"]).length).toBeGreaterThan(0);
  });

  it("honours a draft-07 $schema ($ref siblings ignored) and uses 2020-12 without one", () => {
    const schema = {
      type: "object",
      definitions: { s: { type: "string" } },
      properties: { a: { $ref: "#/definitions/s", maxLength: 2 } },
    };
    // Draft-07 ignores keywords beside $ref; 2019-09 and later apply them.
    expect(errorsOf({ $schema: "http://json-schema.org/draft-07/schema#", ...schema }, { a: "abc" })).toEqual(
      [],
    );
    expect(errorsOf(schema, { a: "abc" }).length).toBeGreaterThan(0);
  });

  it("recognises the declared drafts and defaults to 2020-12", () => {
    expect(schemaDraft({ $schema: "http://json-schema.org/draft-07/schema#" }).draft).toBe("7");
    expect(schemaDraft({ $schema: "https://json-schema.org/draft/2019-09/schema" }).draft).toBe("2019-09");
    expect(schemaDraft({ $schema: "https://json-schema.org/draft/2020-12/schema" }).draft).toBe("2020-12");
    expect(schemaDraft({ $schema: "http://json-schema.org/draft-04/schema#" }).draft).toBe("4");
    expect(schemaDraft({})).toEqual({ draft: "2020-12" });
    expect(schemaDraft({ $schema: "urn:nope" })).toEqual({ draft: "2020-12", unknown: "urn:nope" });
  });

  it("caches by canonical JSON, so key order does not matter", () => {
    const a = getValidator({ type: "object", required: ["x"] });
    const b = getValidator({ required: ["x"], type: "object" });
    expect(b).toBe(a);
    expect(validatorCacheSize()).toBe(1);
    expect(getValidator({ type: "string" })).not.toBe(a);
  });

  it("bounds the cache", () => {
    for (let i = 0; i < 300; i++) getValidator({ type: "string", maxLength: i });
    expect(validatorCacheSize()).toBe(256);
  });

  it("turns an unresolvable $ref into a validation error instead of throwing", () => {
    const errors = errorsOf({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, { a: 1 });
    expect(errors[0]?.message).toMatch(/^schema error:/);
  });

  it("does not mutate the caller's schema", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const before = JSON.stringify(schema);
    getValidator(schema).validate({ a: "x" });
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema)).toEqual(["type", "properties"]);
  });

  it("fails every value of a schema nested deeper than the stack, without throwing", () => {
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 20_000; i++) deep = { items: deep };
    const result = getValidator(deep).validate("x");
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error.errors[0]?.message).toMatch(/^schema error: /);
    expect(validatorCacheSize()).toBe(0);
  });
});
