// Stage outcomes are validated strictly; anything else is hook_invalid_return
// with a message that says exactly what is wrong.
import { describe, expect, it } from "vitest";
import { adapterCode, beforeCode, okValue, runAfter, runBefore, failure, failureOf } from "../helpers";

const before = (value: string) => runBefore(beforeCode(`return ${value};`));
const after = (value: string) =>
  runAfter(adapterCode(`after({ result }) { return ${value}; }`), { items: [] });

describe("before outcomes", () => {
  it("accepts continue, reject and approval", async () => {
    expect(okValue(await before(`{ action: "continue", arguments: { a: 1 } }`))).toEqual({
      action: "continue",
      arguments: { a: 1 },
    });
    expect(
      okValue(await before(`{ action: "reject", reason: "quota.exceeded_v2", message: "Too many calls" }`)),
    ).toEqual({
      action: "reject",
      reason: "quota.exceeded_v2",
      message: "Too many calls",
    });
    expect(
      okValue(
        await before(`{ action: "approval", arguments: {}, reason: "Deletes data.\\nPlease confirm." }`),
      ),
    ).toEqual({
      action: "approval",
      arguments: {},
      reason: "Deletes data.\nPlease confirm.",
    });
  });

  const invalid: Array<[string, string, RegExp]> = [
    ["undefined", `undefined`, /is undefined/],
    ["a string", `"continue"`, /must return an object/],
    ["no action", `{ arguments: {} }`, /no string "action"/],
    ["unknown action", `{ action: "allow", arguments: {} }`, /unknown action "allow"/],
    ["after-only action", `{ action: "return", result: {} }`, /unknown action "return"/],
    ["extra key", `{ action: "continue", arguments: {}, note: "x" }`, /unexpected key "note"/],
    ["missing arguments", `{ action: "continue" }`, /without "arguments"/],
    [
      "non-object arguments",
      `{ action: "continue", arguments: [1] }`,
      /"arguments" that is not a JSON object/,
    ],
    [
      "undefined inside arguments",
      `{ action: "continue", arguments: { a: undefined } }`,
      /arguments\.a is undefined/,
    ],
    [
      "function inside arguments",
      `{ action: "continue", arguments: { f() {} } }`,
      /arguments\.f is a function/,
    ],
    ["NaN", `{ action: "continue", arguments: { n: NaN } }`, /arguments\.n is NaN/],
    ["Infinity", `{ action: "continue", arguments: { n: [1, Infinity] } }`, /arguments\.n\[1\] is Infinity/],
    [
      "a cycle",
      `(() => { const a = {}; a.self = a; return { action: "continue", arguments: a }; })()`,
      /arguments\.self is a circular reference/,
    ],
    [
      "a Date",
      `{ action: "continue", arguments: { d: new Date(0) } }`,
      /arguments\.d is a Date, not a plain object/,
    ],
    ["a Map", `{ action: "continue", arguments: { m: new Map() } }`, /is a Map/],
    ["a sparse array", `{ action: "continue", arguments: { a: [1, , 3] } }`, /arguments\.a\[1\] is a hole/],
    ["a symbol", `{ action: "continue", arguments: { s: Symbol("x") } }`, /is a symbol/],
    [
      "reason not an identifier",
      `{ action: "reject", reason: "Quota Exceeded", message: "m" }`,
      /not a stable identifier/,
    ],
    [
      "reason too long",
      `{ action: "reject", reason: "a".repeat(65), message: "m" }`,
      /not a stable identifier/,
    ],
    ["empty message", `{ action: "reject", reason: "quota", message: "  " }`, /empty "message"/],
    [
      "message too long",
      `{ action: "reject", reason: "quota", message: "m".repeat(1001) }`,
      /longer than 1000/,
    ],
    [
      "control characters",
      `{ action: "reject", reason: "quota", message: "a\\u0007b" }`,
      /control characters/,
    ],
    ["empty approval reason", `{ action: "approval", arguments: {}, reason: "" }`, /empty "reason"/],
    [
      "non-string approval reason",
      `{ action: "approval", arguments: {}, reason: 42 }`,
      /non-string "reason"/,
    ],
  ];
  for (const [name, value, message] of invalid) {
    it(`rejects ${name}`, async () => {
      expect(failureOf(await before(value))).toEqual(failure("hook_invalid_return", message));
    });
  }

  it("accepts a reason of exactly 64 characters and a message of exactly 1000", async () => {
    expect(
      okValue(await before(`{ action: "reject", reason: "a".repeat(64), message: "m".repeat(1000) }`)),
    ).toBeDefined();
  });
});

describe("after outcomes", () => {
  it("accepts return and fail", async () => {
    expect(okValue(await after(`{ action: "return", result: { items: [1] } }`))).toEqual({
      action: "return",
      result: { items: [1] },
    });
    expect(okValue(await after(`{ action: "fail", reason: "upstream_bad", message: "Bad data" }`))).toEqual({
      action: "fail",
      reason: "upstream_bad",
      message: "Bad data",
    });
  });

  it("rejects before-only actions and non-object results", async () => {
    expect(failureOf(await after(`{ action: "continue", arguments: {} }`))).toEqual(
      failure("hook_invalid_return", /unknown action "continue"/),
    );
    expect(failureOf(await after(`{ action: "return", result: "text" }`))).toEqual(
      failure("hook_invalid_return", /"result" that is not a JSON object/),
    );
    expect(failureOf(await after(`{ action: "fail", reason: "x" }`))).toEqual(
      failure("hook_invalid_return", /without "message"/),
    );
  });
});
