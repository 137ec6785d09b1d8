// A compiled adapter must default-export the branded result of
// defineToolAdapter and nothing else; anything else is hook_invalid_module.
import { describe, expect, it } from "vitest";
import { inspectAdapter } from "../../../shared/sandbox";
import { adapterCode, beforeCode, CONTINUE, moduleCode, runBefore, failure, failureOf } from "./helpers";

/** The inspection error for `code`, or null when it inspected fine. */
const inspectFailure = async (code: string) => {
  const result = await inspectAdapter(code);
  return result.ok ? null : result.error;
};

describe("module shape", () => {
  it("a plain object default export is refused", async () => {
    expect(
      await inspectFailure(moduleCode(`return { default: { apiVersion: "rayrun.hooks/v1", before() {} } };`)),
    ).toEqual(failure("hook_invalid_module", /value returned by defineToolAdapter/));
  });

  it("a forged copy of a branded adapter is refused", async () => {
    const forged = moduleCode(
      `const real = defineToolAdapter({ apiVersion: "rayrun.hooks/v1" }); return { default: Object.freeze({ ...real }) };`,
    );
    expect(await inspectFailure(forged)).toEqual(
      failure("hook_invalid_module", /value returned by defineToolAdapter/),
    );
  });

  it("other exports are refused and named", async () => {
    const extra = moduleCode(
      `return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1" }), helper: 1, other: 2 };`,
    );
    expect(await inspectFailure(extra)).toEqual(
      failure("hook_invalid_module", /also exported: helper, other/),
    );
  });

  it("a missing default export is refused", async () => {
    expect(await inspectFailure(moduleCode(`return { before() {} };`))).toEqual(
      failure("hook_invalid_module", /also exported: before|no default export/),
    );
    expect(await inspectFailure(moduleCode(`return {};`))).toEqual(
      failure("hook_invalid_module", /no default export/),
    );
  });

  it("a script that defines no exports is refused", async () => {
    expect(await inspectFailure(`const x = 1;`)).toEqual(
      failure("hook_invalid_module", /defines no exports/),
    );
  });

  it("esbuild's __esModule marker and getter exports are accepted", async () => {
    const code = `var __rayrunModule = (() => {
      var __defProp = Object.defineProperty;
      var exports = {};
      __defProp(exports, "__esModule", { value: true });
      const adapter = defineToolAdapter({ apiVersion: "rayrun.hooks/v1", after() { return { action: "return", result: {} }; } });
      __defProp(exports, "default", { get: () => adapter, enumerable: true });
      return exports;
    })();`;
    expect(await inspectAdapter(code)).toEqual({
      ok: true,
      value: { apiVersion: "rayrun.hooks/v1", stages: ["after"] },
    });
  });

  it("non-function stages, non-string apiVersion and non-JSON contracts are refused", async () => {
    expect(await inspectFailure(adapterCode(`before: 42`))).toEqual(
      failure("hook_invalid_module", /before must be a function/),
    );
    expect(
      await inspectFailure(moduleCode(`return { default: defineToolAdapter({ apiVersion: 2 }) };`)),
    ).toEqual(failure("hook_invalid_module", /apiVersion must be a string/));
    expect(await inspectFailure(adapterCode(`publicContract: { description: () => 1 }`))).toEqual(
      failure("hook_invalid_module", /publicContract\.description is a function/),
    );
  });

  it("defineToolAdapter refuses unknown keys", async () => {
    const result = await inspectAdapter(adapterCode(`befor() {}`));
    expect(result).toEqual({
      ok: false,
      error: { code: "hook_threw", message: 'TypeError: defineToolAdapter: unknown key "befor"' },
    });
  });

  it("a top-level throw is hook_threw", async () => {
    const result = await inspectAdapter(`throw new RangeError("bad top level");`);
    expect(result).toEqual({
      ok: false,
      error: { code: "hook_threw", message: "RangeError: bad top level" },
    });
  });

  it("running a stage the adapter does not define is hook_invalid_module", async () => {
    const report = await runBefore(adapterCode(`after() { return { action: "return", result: {} }; }`));
    expect(failureOf(report)).toEqual(failure("hook_invalid_module", /no before stage/));
  });

  it("the brand survives only within its own sandbox", async () => {
    // Two calls never share a WeakSet: a stage cannot mint adapters for another call.
    const report = await runBefore(
      beforeCode(`globalThis.minted = defineToolAdapter({ apiVersion: "x" }); ${CONTINUE}`),
    );
    expect(report.outcome.ok).toBe(true);
    expect(await inspectFailure(moduleCode(`return { default: globalThis.minted };`))).toEqual(
      failure("hook_invalid_module", /value returned by defineToolAdapter/),
    );
  });
});
