// Hooks may vandalise their own globals; the prelude's captured originals keep
// output serialisation, outcome validation and the next call intact.
import { describe, expect, it } from "vitest";
import {
  beforeCode,
  CONTINUE,
  expectNextCallHealthy,
  okValue,
  runBefore,
  failure,
  failureOf,
} from "./helpers";

const VANDALISM: Record<string, string> = {
  "JSON replaced": `JSON.stringify = () => '{"action":"reject"}'; JSON.parse = () => ({});`,
  "Reflect replaced": `for (const k of Reflect.ownKeys(Reflect)) { try { Reflect[k] = () => { throw new Error("x"); }; } catch {} }`,
  "Object statics replaced": `Object.keys = () => []; Object.freeze = (o) => o; Object.getPrototypeOf = () => null; Object.create = () => ({});`,
  "Array.prototype methods replaced": `for (const k of Object.getOwnPropertyNames(Array.prototype)) { if (k !== "length") Array.prototype[k] = () => { throw new Error("x"); }; }`,
  "Array.prototype[Symbol.iterator] replaced": `Array.prototype[Symbol.iterator] = function* () { yield "evil"; };`,
  "setters on Object.prototype": `for (const k of ["action", "arguments", "value", "get", "set", "context", "config"]) Object.defineProperty(Object.prototype, k, Object.assign(Object.create(null), { set() { throw new Error("x"); }, get() { return "evil"; }, configurable: true }));`,
  "String.prototype methods replaced": `for (const k of Object.getOwnPropertyNames(String.prototype)) { if (k !== "length") String.prototype[k] = () => "evil"; }`,
  "Function.prototype replaced": `const FP = Object.getPrototypeOf(() => {}); FP.call = FP.apply = FP.bind = () => "evil";`,
  "Promise.prototype.then replaced": `Promise.prototype.then = function () { return this; };`,
  "WeakSet replaced": `WeakSet.prototype.has = () => true; WeakSet.prototype.add = () => {};`,
  "Error.isError replaced": `Error.isError = () => false; Error.prototype.name = "Evil";`,
  "Symbol.hasInstance on RegExp": `Object.defineProperty(RegExp, Symbol.hasInstance, { value: () => true });`,
  "globalThis prototype swapped": `Object.setPrototypeOf(globalThis, null);`,
};

describe("prototype and global tampering", () => {
  for (const [name, vandalism] of Object.entries(VANDALISM)) {
    it(`${name}: the stage still returns exactly what it built`, async () => {
      const report = await runBefore(
        beforeCode(`${vandalism}\nreturn { action: "continue", arguments: { q: "kept" } };`),
      );
      expect(okValue(report)).toEqual({ action: "continue", arguments: { q: "kept" } });
      await expectNextCallHealthy();
    });
  }

  it("index accessors on Array.prototype make the output refused, not rewritten", async () => {
    const report = await runBefore(
      beforeCode(
        `for (let i = 0; i < 8; i++) Object.defineProperty(Array.prototype, i, { set() { throw new Error("x"); }, get() { return "evil"; } });\n${CONTINUE}`,
      ),
    );
    expect(failureOf(report)).toEqual(
      failure("hook_invalid_return", /indexed properties on Array\.prototype/),
    );
    await expectNextCallHealthy();
  });

  it("any index-like key on Array.prototype or Object.prototype, whatever its position, makes the output refused", async () => {
    const planted = [
      `Array.prototype[0] = "evil";`,
      `Array.prototype["4294967294"] = "evil";`,
      `Array.prototype["4294967295"] = "evil";`,
      `Object.prototype[3000000000] = "evil";`,
      `Object.prototype["4294967295"] = "evil";`,
      `Object.defineProperty(Object.prototype, "7", { get() { return "evil"; } });`,
    ];
    for (const plant of planted) {
      const report = await runBefore(beforeCode(`${plant}\n${CONTINUE}`));
      expect(failureOf(report), plant).toEqual(
        failure("hook_invalid_return", /indexed properties on Array\.prototype or Object\.prototype/),
      );
    }
    // A length on Array.prototype is how the check sees its indices: a hook that sets one is refused too,
    // and one that puts it back to 0 (deleting what it added) is not.
    const lengthSet = await runBefore(beforeCode(`Array.prototype.length = 3;\n${CONTINUE}`));
    expect(failureOf(lengthSet)).toEqual(failure("hook_invalid_return", /indexed properties/));
    const restored = await runBefore(
      beforeCode(`Array.prototype[2] = "evil"; Array.prototype.length = 0;\n${CONTINUE}`),
    );
    expect(okValue(restored)).toEqual({ action: "continue", arguments: {} });
    const pinned = await runBefore(
      beforeCode(
        `Object.defineProperty(Array.prototype, 2, { value: "evil", configurable: false }); try { Array.prototype.length = 0; } catch {}\n${CONTINUE}`,
      ),
    );
    expect(failureOf(pinned)).toEqual(failure("hook_invalid_return", /indexed properties/));
    // Keys that only look numeric are not indices: the output is built as usual.
    for (const plant of [
      `Array.prototype["01"] = 1;`,
      `Array.prototype["-1"] = 1;`,
      `Object.prototype["4294967296"] = 1;`,
    ]) {
      expect(okValue(await runBefore(beforeCode(`${plant}\n${CONTINUE}`))), plant).toEqual({
        action: "continue",
        arguments: {},
      });
    }
    await expectNextCallHealthy();
  });

  it("errors stay readable after Array.prototype is vandalised", async () => {
    const report = await runBefore(
      beforeCode(
        `Object.defineProperty(Array.prototype, 0, { get() { return "evil"; } }); throw new TypeError("boom");`,
      ),
    );
    expect(failureOf(report)).toEqual(failure("hook_threw", /^TypeError: boom$/));
  });

  it("toJSON planted on prototypes does not rewrite the output", async () => {
    const report = await runBefore(beforeCode(`Object.prototype.toJSON = () => "evil"; ${CONTINUE}`));
    expect(failureOf(report)).toEqual(failure("hook_invalid_return", /toJSON/));
    await expectNextCallHealthy();
  });

  it("a polluted Object.prototype.action does not count as the outcome's action", async () => {
    const report = await runBefore(
      beforeCode(`Object.prototype.action = "continue"; return { arguments: {} };`),
    );
    expect(failureOf(report)).toEqual(failure("hook_invalid_return", /no string "action"/));
  });

  it("getters on the returned object are evaluated once like JSON data, not trusted", async () => {
    const report = await runBefore(
      beforeCode(
        `let n = 0; return { get action() { return n++ === 0 ? "continue" : "reject"; }, arguments: {} };`,
      ),
    );
    expect(report.outcome.ok || report.outcome.error.code === "hook_invalid_return").toBe(true);
    await expectNextCallHealthy();
  });

  it("a getter read while serialising may log data of its own without upsetting the outer serialisation", async () => {
    const report = await runBefore(
      beforeCode(
        `const big = "x".repeat(40); return { action: "continue", arguments: { get a() { context.log.info("inside", { list: [1, [2, { deep: big }]] }); return "v"; }, b: [big, { c: big }] } };`,
      ),
    );
    expect(okValue(report)).toEqual({
      action: "continue",
      arguments: { a: "v", b: ["x".repeat(40), { c: "x".repeat(40) }] },
    });
    // The walk and the native serialisation each read the getter once.
    expect(report.logs.length).toBeGreaterThan(0);
    for (const entry of report.logs)
      expect(entry).toEqual({
        level: "info",
        message: "inside",
        data: { list: [1, [2, { deep: "x".repeat(40) }]] },
      });
  });

  it("a getter that logs a value the log refuses leaves the outer serialisation's verdict intact", async () => {
    const report = await runBefore(
      beforeCode(
        `return { action: "continue", arguments: { get a() { try { context.log.info("inside", { f() {} }); } catch {} return "v"; }, b: undefined } };`,
      ),
    );
    expect(failureOf(report)).toEqual(
      failure("hook_invalid_return", /^before's return value\.arguments\.b is undefined/),
    );
  });

  it("a getter that logs during the walk does not hide a cycle back to the outer value", async () => {
    const report = await runBefore(
      beforeCode(
        `const inner = { get a() { context.log.info("inside", { y: 1 }); return 1; } }; const out = { action: "continue", arguments: inner }; inner.back = out; return out;`,
      ),
    );
    expect(failureOf(report)).toEqual(
      failure("hook_invalid_return", /^before's return value\.arguments\.back is a circular reference/),
    );
  });

  it("a Proxy as the return value cannot smuggle non-JSON past validation", async () => {
    const report = await runBefore(
      beforeCode(
        `return new Proxy({}, { ownKeys: () => ["action", "arguments"], getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }), get: (t, k) => (k === "action" ? "continue" : undefined) });`,
      ),
    );
    expect(failureOf(report)).toEqual(failure("hook_invalid_return"));
    await expectNextCallHealthy();
  });

  it("logs still work after their arguments' prototypes are vandalised", async () => {
    const report = await runBefore(
      beforeCode(
        `Object.prototype.toJSON = undefined; delete Object.prototype.toJSON; Array.prototype.join = null; context.log.info("ok", { a: [1] }); ${CONTINUE}`,
      ),
    );
    expect(okValue(report)).toBeDefined();
    expect(report.logs).toEqual([{ level: "info", message: "ok", data: { a: [1] } }]);
  });
});
