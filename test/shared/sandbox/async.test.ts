// Async stages settle through the runtime's job queue; the generic core also
// supports awaited host capabilities, and concurrent runs never share state.
import { describe, expect, it } from "vitest";
import type { Json } from "../../../shared/json";
import wasmModule from "../../../shared/sandbox/wasm/quickjs-metered.wasm";
import { LIMITS } from "../../../shared/limits";
import {
  createEngineProvider,
  runInvocation,
  type EngineProvider,
  type PreludeExtension,
} from "../../../shared/sandbox";
import { NATIVE_QUANTUM } from "../../../shared/sandbox/engine/native-meter";
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

function runTransform(
  code: string,
  input: Json,
  echo: (value: Json) => Promise<Json>,
  engines: EngineProvider = workerdEngines,
  fuel?: number,
) {
  return runInvocation(
    engines,
    { kind: "test-host-calls", code, extensions: [hostExtension], prepare: () => undefined },
    { nowMs: 0, seed: "s", hostCalls: { echo }, ...(fuel === undefined ? {} : { fuel }) },
    (call) => call.invoke(["transform"], "withHost", [input], "transform's return value"),
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

  it("a call keeps its native loop count across an await, while another call ran in the instance: one built-in past it still stops the call", async () => {
    const engines = createEngineProvider(() => wasmModule, { nativeLoopTurns: 2 * NATIVE_QUANTUM });
    // Ropes of 3 × 2^20 characters (doubling builds them in a few turns); their comparison after the await
    // takes more turns, in one step, than the phase has.
    const compareAfterAwait = moduleCode(`
      return {
        async transform({ fetchValue }) {
          let a = "x"; for (let i = 0; i < 20; i++) a += a;
          let b = "x"; for (let i = 0; i < 20; i++) b += b;
          a = a + a + a + "a";
          b = b + b + b + "b";
          await fetchValue(1);
          return { equal: a === b };
        },
      };`);
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = runTransform(
      compareAfterAwait,
      {},
      async (value) => {
        await gate;
        return value;
      },
      engines,
    );
    // Another call arms and disarms the meter of the same instance while the first one waits.
    const other = await runTransform(transform, { tag: "other" }, async (value) => value, engines);
    expect(okValue(other)).toMatchObject({ tag: "other", reply: { tag: "other" } });
    release?.();
    const report = await waiting;
    expect(failureOf(report)).toEqual(failure("hook_timeout", /built-in work ran past its budget/));
    expect(report.fuelUsed).toBeGreaterThanOrEqual(LIMITS.fuelPerInvocation);
  });

  it("a failing host call rejects inside the hook", async () => {
    const report = await runTransform(transform, { tag: "x" }, async () => {
      throw new Error("upstream unavailable");
    });
    expect(failureOf(report)).toEqual(failure("hook_threw", /upstream unavailable/));
  });
});

describe("a call that awaits sets its state aside and holds no instance", () => {
  const holder = moduleCode(`
    return {
      async transform({ input, fetchValue }) {
        const held = [];
        for (let i = 0; i < input.chunks; i++) held.push(new Uint8Array(input.chunkBytes).fill(i + 1));
        const reply = await fetchValue({ tag: input.tag });
        let sum = 0;
        for (let i = 0; i < held.length; i++) sum += held[i][input.chunkBytes - 1];
        return { tag: input.tag, reply, sum };
      },
    };`);

  it("its state is written back exactly, after other calls used the instance", async () => {
    const engines = createEngineProvider(() => wasmModule);
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = runTransform(
      holder,
      { tag: "slow", chunks: 3, chunkBytes: 1 << 16 },
      async (value) => {
        await gate;
        return value;
      },
      engines,
    );
    await Promise.resolve();
    for (let i = 0; i < 5; i++) {
      const other = await runTransform(
        holder,
        { tag: `other${i}`, chunks: 2, chunkBytes: 1 << 10 },
        async (v) => v,
        engines,
      );
      expect(okValue(other)).toEqual({ tag: `other${i}`, reply: { tag: `other${i}` }, sum: 3 });
    }
    const parked = (await engines.get()).images?.stats().parkedBytes ?? 0;
    expect(parked).toBeGreaterThan(3 << 16);
    release?.();
    expect(okValue(await slow)).toEqual({ tag: "slow", reply: { tag: "slow" }, sum: 6 });
    expect((await engines.get()).images?.stats().parkedBytes).toBe(0);
  });

  it("a call that would set aside more than the limit fails with hook_out_of_memory and never reaches the capability", async () => {
    let reached = false;
    const chunkBytes = 6 << 20;
    const chunks = Math.ceil(LIMITS.sandboxParkedBytes / chunkBytes) + 1;
    const report = await runTransform(
      holder,
      { tag: "big", chunks, chunkBytes },
      async (value) => {
        reached = true;
        return value;
      },
      workerdEngines,
      50_000_000,
    );
    expect(failureOf(report)).toEqual(failure("hook_out_of_memory", /more than can be set aside/));
    await Promise.resolve();
    expect(reached).toBe(false);
    await expectNextCallHealthy();
  });

  it("a call waiting when the engine is replaced fails closed, and the next call works", async () => {
    const engines = createEngineProvider(() => wasmModule);
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = runTransform(
      holder,
      { tag: "w", chunks: 1, chunkBytes: 16 },
      async (value) => {
        await gate;
        return value;
      },
      engines,
    );
    await Promise.resolve();
    engines.retire(await engines.get());
    release?.();
    // The engine's own fault, not the hook's: a caller may run the hook again in a fresh sandbox.
    expect(failureOf(await waiting)).toEqual({
      ...failure("hook_out_of_memory", /engine failed while the hook awaited/),
      engineFault: true,
    });
    expect(
      okValue(await runTransform(holder, { tag: "n", chunks: 1, chunkBytes: 16 }, async (v) => v, engines)),
    ).toEqual({
      tag: "n",
      reply: { tag: "n" },
      sum: 1,
    });
  });

  it("calls that await nothing, started together, each get their own answer", async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        runBefore(
          adapterCode(
            `before({ arguments: args }) { return { action: "continue", arguments: { i: args.i * 2 } }; }`,
          ),
          { i },
        ),
      ),
    );
    for (const [i, answer] of answers.entries()) {
      expect(okValue(answer)).toEqual({ action: "continue", arguments: { i: i * 2 } });
    }
  });
});
