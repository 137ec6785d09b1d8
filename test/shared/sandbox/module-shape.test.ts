// A compiled adapter must default-export the branded result of
// defineToolAdapter and nothing else; anything else is hook_invalid_module.
import { describe, expect, it } from "vitest";
import { inspectAdapter } from "../../../shared/sandbox";
import { adapterCode, beforeCode, CONTINUE, moduleCode, runBefore, failure, failureOf } from "./helpers";

const invalid = async (code: string, message: RegExp) => {
  const result = await inspectAdapter(code);
  expect(result.ok ? "ok" : result.error.code, JSON.stringify(result)).toBe("hook_invalid_module");
  if (!result.ok) expect(result.error.message).toMatch(message);
};

describe("module shape", () => {
  it("a plain object default export is refused", async () => {
    await invalid(moduleCode(`return { default: { apiVersion: "rayrun.hooks/v1", before() {} } };`), /value returned by defineToolAdapter/);
  });

  it("a forged copy of a branded adapter is refused", async () => {
    await invalid(
      moduleCode(`const real = defineToolAdapter({ apiVersion: "rayrun.hooks/v1" }); return { default: Object.freeze({ ...real }) };`),
      /value returned by defineToolAdapter/,
    );
  });

  it("other exports are refused and named", async () => {
    await invalid(
      moduleCode(`return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1" }), helper: 1, other: 2 };`),
      /also exported: helper, other/,
    );
  });

  it("a missing default export is refused", async () => {
    await invalid(moduleCode(`return { before() {} };`), /also exported: before|no default export/);
    await invalid(moduleCode(`return {};`), /no default export/);
  });

  it("a script that defines no exports is refused", async () => {
    await invalid(`const x = 1;`, /defines no exports/);
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
    expect(await inspectAdapter(code)).toEqual({ ok: true, value: { apiVersion: "rayrun.hooks/v1", stages: ["after"] } });
  });

  it("non-function stages, non-string apiVersion and non-JSON contracts are refused", async () => {
    await invalid(adapterCode(`before: 42`), /before must be a function/);
    await invalid(moduleCode(`return { default: defineToolAdapter({ apiVersion: 2 }) };`), /apiVersion must be a string/);
    await invalid(adapterCode(`publicContract: { description: () => 1 }`), /publicContract\.description is a function/);
  });

  it("defineToolAdapter refuses unknown keys", async () => {
    const result = await inspectAdapter(adapterCode(`befor() {}`));
    expect(result).toEqual({ ok: false, error: { code: "hook_threw", message: 'TypeError: defineToolAdapter: unknown key "befor"' } });
  });

  it("a top-level throw is hook_threw", async () => {
    const result = await inspectAdapter(`throw new RangeError("bad top level");`);
    expect(result).toEqual({ ok: false, error: { code: "hook_threw", message: "RangeError: bad top level" } });
  });

  it("running a stage the adapter does not define is hook_invalid_module", async () => {
    const report = await runBefore(adapterCode(`after() { return { action: "return", result: {} }; }`));
    expect(failureOf(report)).toEqual(failure("hook_invalid_module", /no before stage/));
  });

  it("the brand survives only within its own sandbox", async () => {
    // Two calls never share a WeakSet: a stage cannot mint adapters for another call.
    const report = await runBefore(beforeCode(`globalThis.minted = defineToolAdapter({ apiVersion: "x" }); ${CONTINUE}`));
    expect(report.outcome.ok).toBe(true);
    await invalid(moduleCode(`return { default: globalThis.minted };`), /value returned by defineToolAdapter/);
  });
});
