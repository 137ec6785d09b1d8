// The sandbox is capability-free: no code generation, no modules, no
// timers/network/console, no weak references or shared memory, and nothing
// one call does survives into the next.
import { describe, expect, it } from "vitest";
import { beforeCode, CONTINUE, expectNextCallHealthy, probe, runBefore, failure, failureOf } from "./helpers";

const codegenRoutes: Record<string, string> = {
  eval: `eval("1")`,
  "indirect eval": `(0, globalThis["ev" + "al"])("1")`,
  Function: `Function("return 1")()`,
  "function constructor": `(function () {}).constructor("return 1")()`,
  "arrow constructor": `(() => {}).constructor("return 1")()`,
  "async function constructor": `(async function () {}).constructor("return 1")`,
  "generator function constructor": `(function* () {}).constructor("yield 1")`,
  "async generator function constructor": `(async function* () {}).constructor("yield 1")`,
  "class method constructor": `(class { m() {} }).prototype.m.constructor("return 1")`,
  "prototype chain constructor": `Object.getPrototypeOf(Object.getPrototypeOf(async () => {})).constructor("return 1")`,
  "Reflect.construct": `Reflect.construct((function () {}).constructor, ["return 1"])`,
  "bound constructor": `(function () {}).constructor.bind(null, "return 1")()()`,
  "setTimeout string": `setTimeout("1")`,
};

describe("capability-free globals", () => {
  for (const [name, expression] of Object.entries(codegenRoutes)) {
    it(`code generation via ${name} fails`, async () => {
      const report = await runBefore(beforeCode(`${expression}; ${CONTINUE}`));
      expect(failureOf(report)).toEqual(failure("hook_threw"));
      await expectNextCallHealthy();
    });
  }

  it("import() fails", async () => {
    const report = await runBefore(
      beforeCode(`await import("node:fs"); ${CONTINUE}`).replace("before(", "async before("),
    );
    expect(failureOf(report)).toEqual(failure("hook_threw", /could not load module/));
    await expectNextCallHealthy();
  });

  it("static import is a syntax error (scripts only)", async () => {
    const report = await runBefore(`import fs from "node:fs";\n` + beforeCode(CONTINUE));
    expect(failureOf(report)).toEqual(failure("hook_threw", /SyntaxError/));
  });

  it("WeakRef, FinalizationRegistry, SharedArrayBuffer, BigInt and friends are absent", async () => {
    const names = [
      "WeakRef",
      "FinalizationRegistry",
      "SharedArrayBuffer",
      "Atomics",
      "eval",
      "Function",
      "BigInt",
      "fetch",
      "setTimeout",
      "setInterval",
      "queueMicrotask",
      "console",
      "process",
      "require",
      "std",
      "os",
    ];
    const value = await probe(`${JSON.stringify(names)}.filter((n) => typeof globalThis[n] !== "undefined")`);
    expect(value).toEqual([]);
  });

  it("globalThis itself is not frozen", async () => {
    expect(await probe(`(globalThis.mine = 1, Object.isFrozen(globalThis))`)).toBe(false);
  });

  it("nothing survives between calls", async () => {
    await probe(`(globalThis.leak = "x", Object.prototype.leak = "y", Array.prototype.push = null, 1)`);
    expect(await probe(`[typeof globalThis.leak, typeof ({}).leak, typeof [].push]`)).toEqual([
      "undefined",
      "undefined",
      "function",
    ]);
    await expectNextCallHealthy();
  });

  it("defineToolAdapter is not replaceable", async () => {
    expect(
      await probe(
        `(() => { try { globalThis.defineToolAdapter = 1; } catch {} return typeof defineToolAdapter; })()`,
      ),
    ).toBe("function");
  });
});
