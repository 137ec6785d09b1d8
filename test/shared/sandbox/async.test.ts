// Async stages settle through the runtime's job queue; the generic core also
// supports awaited host capabilities, and concurrent runs never share state.
import { describe, expect, it } from "vitest";
import type { Json } from "../../../shared/json";
import { runInvocation, type PreludeExtension } from "../../../shared/sandbox";
import { workerdEngines } from "../../../shared/sandbox/wasm-workerd";
import {
  adapterCode,
  expectNextCallHealthy,
  okValue,
  moduleCode,
  runBefore,
  failure,
  failureOf,
} from "./helpers";

// A test-only extension: a builder that lends `fetchValue` (an async host
// capability) to a named export, the way request hooks will.
const hostExtension: PreludeExtension = {
  name: "test-host-calls",
  source: `builders.withHost = (args) => [{ input: args[0], fetchValue: (value) => callHost("echo", value) }];`,
};

function runTransform(code: string, input: Json, echo: (value: Json) => Promise<Json>) {
  return runInvocation(
    workerdEngines,
    { code, extensions: [hostExtension], nowMs: 0, seed: "s", hostCalls: { echo } },
    (session) => session.invoke(["transform"], "withHost", [input], "transform's return value"),
  );
}

describe("async stages", () => {
  it("an async before resolves through awaited microtasks", async () => {
    const code = adapterCode(`async before({ arguments: args }) {
      const q = await Promise.resolve(args.q).then((v) => v + "!");
      await null;
      return { action: "continue", arguments: { q } };
    }`);
    expect(okValue(await runBefore(code, { q: "hi" }))).toEqual({
      action: "continue",
      arguments: { q: "hi!" },
    });
  });

  it("a promise that never settles is hook_invalid_return", async () => {
    const code = adapterCode(`async before() { await new Promise(() => {}); }`);
    expect(failureOf(await runBefore(code))).toEqual(failure("hook_invalid_return", /never settled/));
    await expectNextCallHealthy();
  });

  it("a thenable that never calls back is hook_invalid_return", async () => {
    const code = adapterCode(`async before() { return { then() {} }; }`);
    expect(failureOf(await runBefore(code))).toEqual(failure("hook_invalid_return", /never settled/));
  });
});

describe("host capabilities and interleaving", () => {
  const transform = moduleCode(`
    let calls = 0;
    return {
      async transform({ input, fetchValue }) {
        calls++;
        globalThis.seen = (globalThis.seen || 0) + 1;
        const reply = await fetchValue({ tag: input.tag });
        return { tag: input.tag, reply, calls, seen: globalThis.seen, now: Date.now() };
      },
    };`);

  it("a named export can await a host call", async () => {
    const report = await runTransform(transform, { tag: "a" }, async (value) => ({ echoed: value }));
    expect(okValue(report)).toEqual({ tag: "a", reply: { echoed: { tag: "a" } }, calls: 1, seen: 1, now: 0 });
  });

  it("two runs in flight, one awaiting, do not share state", async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = runTransform(transform, { tag: "slow" }, async (value) => {
      await gate;
      return { slow: value };
    });
    const fast = await runTransform(transform, { tag: "fast" }, async (value) => ({ fast: value }));
    expect(okValue(fast)).toEqual({
      tag: "fast",
      reply: { fast: { tag: "fast" } },
      calls: 1,
      seen: 1,
      now: 0,
    });
    // A hostile call runs while the slow one is still suspended.
    expect(failureOf(await runBefore(adapterCode(`before() { for (;;) {} }`)))).toEqual(
      failure("hook_timeout"),
    );
    release?.();
    expect(okValue(await slow)).toEqual({
      tag: "slow",
      reply: { slow: { tag: "slow" } },
      calls: 1,
      seen: 1,
      now: 0,
    });
  });

  it("a failing host call rejects inside the hook", async () => {
    const report = await runTransform(transform, { tag: "x" }, async () => {
      throw new Error("upstream unavailable");
    });
    expect(failureOf(report)).toEqual(failure("hook_threw", /upstream unavailable/));
  });
});
