// Failures are classified from what the engine reports (error class, own
// data, the meter's and log collector's state), never from user text alone.
import { describe, expect, it } from "vitest";
import type { SandboxErrorCode } from "../../../shared/sandbox";
import { beforeCode, runBefore, failure, failureOf } from "./helpers";

describe("error classification", () => {
  const cases: Array<[string, string, SandboxErrorCode, RegExp]> = [
    [
      "an Error saying 'out of memory'",
      `throw new Error("out of memory");`,
      "hook_threw",
      /^Error: out of memory$/,
    ],
    [
      "a RangeError saying 'stack overflow'",
      `throw new RangeError("stack overflow");`,
      "hook_threw",
      /^RangeError: stack overflow$/,
    ],
    [
      "an Error saying 'interrupted'",
      `throw new Error("interrupted");`,
      "hook_threw",
      /^Error: interrupted$/,
    ],
    ["null", `throw null;`, "hook_threw", /threw null/],
    ["a string", `throw "plain text";`, "hook_threw", /threw plain text/],
    ["an object", `throw { message: "x" };`, "hook_threw", /a non-Error object/],
    [
      "an error with a getter message",
      `const e = new Error("x"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); throw e;`,
      "hook_threw",
      /^Error: $/,
    ],
    [
      "a custom error class",
      `class QuotaError extends Error { constructor() { super("over"); this.name = "QuotaError"; } } throw new QuotaError();`,
      "hook_threw",
      /^QuotaError: over$/,
    ],
    [
      "a rejected async stage",
      `return Promise.reject(new TypeError("async boom"));`,
      "hook_threw",
      /^TypeError: async boom$/,
    ],
  ];
  for (const [name, body, code, message] of cases) {
    it(`throwing ${name} → ${code}`, async () => {
      expect(failureOf(await runBefore(beforeCode(body)))).toEqual(failure(code, message));
    });
  }

  it("long messages are truncated", async () => {
    expect(failureOf(await runBefore(beforeCode(`throw new Error("x".repeat(5000));`)))).toEqual(
      failure("hook_threw", /^Error: x{1000}…$/),
    );
  });
});
