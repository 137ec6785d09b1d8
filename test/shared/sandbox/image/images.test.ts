// Memory images (shared/sandbox/image/images.ts): every call starts from its code's
// image, so a call gives exactly what a call in a runtime of its own gives,
// learns nothing of earlier calls, and leaves nothing behind; images stay
// bounded, failures of the engine are never remembered as the code's own.
import { describe, expect, it } from "vitest";
import wasmModule from "../../../../shared/sandbox/wasm/quickjs-metered.wasm";
import type { Json } from "../../../../shared/json";
import { LIMITS } from "../../../../shared/limits";
import {
  createAdapterSandbox,
  createEngineProvider,
  createModuleSandbox,
  MODULE_CLOCK_MS,
} from "../../../../shared/sandbox";
import { heapBreak } from "../../../../shared/sandbox/engine/heap-layout";
import { STACK_WINDOW_BYTES } from "../../../../shared/sandbox/image/residency";
import type { AdapterStage, InvocationReport, ToolCallContext } from "../../../../shared/sandbox/types";
import { ADAPTER_2KB, beforeCode, CONTINUE, moduleCode, SEED_ADAPTER } from "../code";
import { failure, failureOf, okValue, testContext } from "../helpers";

const provider = createEngineProvider(() => wasmModule);
const images = createAdapterSandbox(provider);
const fresh = createAdapterSandbox(createEngineProvider(() => wasmModule, { images: false }));

type Sandbox = typeof images;
const call = (
  sandbox: Sandbox,
  code: string,
  stage: AdapterStage,
  input: { arguments?: Json; result?: Json },
  context: ToolCallContext = testContext(),
) => sandbox.runAdapterStage({ code, stage, context, ...input });

const comparable = (report: InvocationReport<unknown>) => ({
  outcome: report.outcome,
  logs: report.logs,
  fuelUsed: report.fuelUsed,
});

/** Lets the task that puts memory back after a call run (it was queued first). */
const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const statsOf = async (engines = provider) => {
  const stats = (await engines.get()).images?.stats();
  if (!stats) throw new Error("the engine has no images");
  return stats;
};

describe("calls from an image equal calls in a runtime of their own", () => {
  it("finds the memory layout, so calls run from images", async () => {
    const engine = await provider.get();
    expect(engine.images).not.toBeNull();
    expect(engine.layout.codeLength).not.toBeNull();
  });

  it("seed and ~2 KB adapters: the same outcome and logs for before and after, and the same fuel from the image every time", async () => {
    const cases: [string, AdapterStage, { arguments?: Json; result?: Json }][] = [
      [SEED_ADAPTER, "before", { arguments: { query: "v2" } }],
      [SEED_ADAPTER, "after", { result: { items: [{ id: 1 }], total: 1 } }],
      [ADAPTER_2KB, "before", { arguments: { query: "The Workers release", limit: 50, product: "d1" } }],
      [ADAPTER_2KB, "before", { arguments: { query: "the of and" } }],
      [ADAPTER_2KB, "after", { result: { items: [{ id: 1, summary: "mail a@b.co", extra: true }] } }],
    ];
    for (const [code, stage, input] of cases) {
      // Twice from the image: the first call builds it, the second restores it.
      const first = await call(images, code, stage, input);
      const second = await call(images, code, stage, input);
      const own = await call(fresh, code, stage, input);
      expect(first.outcome.ok).toBe(true);
      expect(comparable(second)).toEqual(comparable(first));
      // A runtime of its own prices held memory by its allocation count (no heap layout there), so fuel may differ.
      expect({ outcome: first.outcome, logs: first.logs }).toEqual({ outcome: own.outcome, logs: own.logs });
    }
  });

  it("Date and Math.random inside a call are the call's; the top level's are fixed", async () => {
    const probe = moduleCode(`
      const topNow = Date.now();
      const topRandom = [Math.random(), Math.random()];
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before({ context }) {
          return { action: "continue", arguments: {
            now: Date.now(), random: [Math.random(), Math.random()], topNow, topRandom, requestId: context.requestId } };
        } }) };`);
    const seen: Json[] = [];
    for (const requestId of ["req_a", "req_b", "req_a"]) {
      const context = testContext({ requestId, calledAt: "2031-01-02T03:04:05.678Z" });
      const value = okValue(await call(images, probe, "before", {}, context));
      expect(value).toEqual(okValue(await call(fresh, probe, "before", {}, context)));
      const args = (value as { arguments: Record<string, Json> }).arguments;
      expect(args.now).toBe(Date.parse(context.calledAt));
      expect(args.topNow).toBe(MODULE_CLOCK_MS);
      seen.push(args.random ?? null);
    }
    expect(seen[0]).toEqual(seen[2]);
    expect(seen[0]).not.toEqual(seen[1]);
  });
});

describe("nothing crosses from one call to the next", () => {
  it("state a call writes (globals, module variables, prototypes, queued jobs) is gone in the next", async () => {
    const code = moduleCode(`
      let calls = 0;
      const cache = [];
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before({ arguments: args }) {
          calls++;
          cache.push(args.tag);
          globalThis.seen = (globalThis.seen || 0) + 1;
          const patched = typeof Array.prototype.sneaky === "function";
          Array.prototype.sneaky = () => "left behind";
          const queued = globalThis.queued === true;
          Promise.resolve().then(() => { globalThis.queued = true; });
          return { action: "continue", arguments: { calls, cache, seen: globalThis.seen, patched, queued } };
        } }) };`);
    for (const tag of ["a", "b", "c"]) {
      expect(okValue(await call(images, code, "before", { arguments: { tag } }))).toEqual({
        action: "continue",
        arguments: { calls: 1, cache: [tag], seen: 1, patched: false, queued: false },
      });
    }
  });

  it("traps a top level plants see none of a call's values", async () => {
    const watcher = moduleCode(`
      const seen = [];
      Object.defineProperty(Object.prototype, "query", { set(v) { seen.push(v); }, get() { return undefined; }, configurable: true });
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before({ arguments: args }) { return { action: "continue", arguments: { seen: seen.length, own: Object.keys(args) } }; } }) };`);
    for (const query of ["secret-1", "secret-2"]) {
      expect(okValue(await call(images, watcher, "before", { arguments: { query } }))).toEqual({
        action: "continue",
        arguments: { seen: 0, own: ["query"] },
      });
    }
  });

  it("once a call has answered, memory is put back to exactly its image: the heap it grew and the stack it used are zero, and the stack below the window never changes but for the native meter's words", async () => {
    const engine = await provider.get();
    const host = engine.images;
    if (!host) throw new Error("no images");
    const { layout } = host;
    const code = beforeCode(`
      const big = "q".repeat(1 << 14) + args.tag;
      const deep = (n) => (n === 0 ? big.length : deep(n - 1) + 1);
      JSON.parse("[".repeat(500) + "]".repeat(500));
      /(a+)+b/.test("aaaab");
      return { action: "continue", arguments: { n: deep(40) } };`);
    const stackFloor = layout.heapBase - STACK_WINDOW_BYTES;
    const nonZero = (from: number, to: number) =>
      new Uint8Array(engine.memory.buffer, from, to - from).some((byte) => byte !== 0);
    // The first byte that differs (-1: none); a deep equal of megabytes would take seconds.
    const firstDifference = (at: number, expected: Uint8Array) =>
      new Uint8Array(engine.memory.buffer, at, expected.length).findIndex((byte, i) => byte !== expected[i]);
    // The stack below the window, but for the native loop meter's words (each phase arms them).
    const belowNow = () => {
      const bytes = new Uint8Array(
        engine.memory.buffer,
        layout.staticBytes,
        stackFloor - layout.staticBytes,
      ).slice();
      const meter = engine.meter;
      if (meter) bytes.fill(0, meter.address - layout.staticBytes, meter.address - layout.staticBytes + 24);
      return bytes;
    };
    const below = belowNow();
    for (const tag of ["x", "y"]) {
      expect(okValue(await call(images, code, "before", { arguments: { tag } }))).toEqual({
        action: "continue",
        arguments: { n: (1 << 14) + 1 + 40 },
      });
      const grownTo = heapBreak(engine.memory, layout);
      await settled();
      const image = host.find(code, "adapter", Infinity);
      if (image === undefined || !("delta" in image)) throw new Error("the code has no image");
      const state = host.stateOf(image);
      expect(firstDifference(0, state.static)).toBe(-1);
      expect(firstDifference(layout.heapBase, state.heap)).toBe(-1);
      expect(grownTo).toBeGreaterThan(state.end + (1 << 14));
      expect(nonZero(state.end, grownTo)).toBe(false);
      expect(nonZero(stackFloor, layout.heapBase)).toBe(false);
    }
    const after = belowNow();
    expect(after.findIndex((byte, i) => byte !== below[i])).toBe(-1);
  });

  it("a call that comes before the last one was put back writes its own image in; one that comes after writes nothing and still starts from its image", async () => {
    const host = (await provider.get()).images;
    if (!host) throw new Error("no images");
    const code = beforeCode(`
      globalThis.seen = (globalThis.seen ?? 0) + 1;
      return { action: "continue", arguments: { seen: globalThis.seen, grown: "z".repeat(4096).length } };`);
    const run = async () => okValue(await call(images, code, "before", {}));
    const startState = { action: "continue", arguments: { seen: 1, grown: 4096 } };
    await run();
    // Back to back, within one task: nothing was put back in between.
    const counters = { ...host.residency.counters };
    const pair = await Promise.all([run(), run()]);
    expect(pair).toEqual([startState, startState]);
    expect(host.residency.counters.writes - counters.writes).toBe(2);
    await settled();
    const before = { ...host.residency.counters };
    expect(before.settled).toBeGreaterThan(counters.settled);
    expect(await run()).toEqual(startState);
    expect(host.residency.counters.writes).toBe(before.writes);
    expect(host.residency.counters.skipped).toBe(before.skipped + 1);
  });
});

describe("images stay bounded", () => {
  it("keeps code images within their byte limit, least recently used dropped first, and rebuilds a dropped one", async () => {
    const small = createEngineProvider(() => wasmModule, { imageBytes: 64 * 1024 });
    const sandbox = createAdapterSandbox(small);
    const codes = Array.from({ length: 24 }, (_, i) =>
      beforeCode(`return { action: "continue", arguments: { i: ${i} } };`),
    );
    for (const code of codes) expect((await call(sandbox, code, "before", {})).outcome.ok).toBe(true);
    const stats = await statsOf(small);
    expect(stats.imageBytes).toBeLessThanOrEqual(64 * 1024);
    expect(stats.codes).toBeLessThan(codes.length);
    // The first code's image was dropped: its next call builds it again, with the same outcome.
    expect(okValue(await call(sandbox, codes[0] ?? "", "before", {}))).toEqual({
      action: "continue",
      arguments: { i: 0 },
    });
  });

  it("code run once (keep: false) leaves no image and no expanded copy behind, and answers as a kept one does", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const modules = createModuleSandbox(engines);
    const run = (i: number, keep: boolean) =>
      modules.runModuleExport({
        code: moduleCode(`let n = ${i}; return { main(input) { n += input.add; return n; } };`),
        exportPath: ["main"],
        input: { add: 1 },
        nowMs: 0,
        seed: "req",
        keep,
      });
    for (let i = 0; i < 5; i++) expect(okValue(await run(i, false))).toEqual({ value: i + 1 });
    await settled();
    expect(await statsOf(engines)).toMatchObject({ codes: 0, expandedBytes: 0 });
    expect(okValue(await run(7, true))).toEqual({ value: 8 });
    const kept = await statsOf(engines);
    expect(kept.codes).toBe(1);
    expect(kept.expandedBytes).toBeGreaterThan(0);
  });

  it("the limit is in force by default", async () => {
    expect((await statsOf()).imageBytes).toBeLessThanOrEqual(LIMITS.sandboxImageBytes);
  });
});

describe("remembered failures", () => {
  it("a top level that fails on its own is remembered per code, for a bounded time", async () => {
    let now = 1_000;
    const clocked = createEngineProvider(() => wasmModule, { now: () => now });
    const sandbox = createAdapterSandbox(clocked);
    const failing = `throw new Error("bad top level");\n` + beforeCode(CONTINUE);
    const first = await call(sandbox, failing, "before", {});
    expect(failureOf(first)).toEqual(failure("hook_threw", /bad top level/));
    expect((await statsOf(clocked)).rememberedFailures).toBe(1);
    expect(comparable(await call(sandbox, failing, "before", {}))).toEqual(comparable(first));
    now += 61_000;
    expect((await statsOf(clocked)).rememberedFailures).toBe(0);
  });

  it("a top level that runs out of memory is not remembered: memory is the instance's, not the code's", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const sandbox = createAdapterSandbox(engines);
    const bomb =
      `const a = new Float64Array(1 << 22); const b = new Float64Array(1 << 22);\n` + beforeCode(CONTINUE);
    expect(failureOf(await call(sandbox, bomb, "before", {}))).toEqual(failure("hook_out_of_memory"));
    expect((await statsOf(engines)).rememberedFailures).toBe(0);
    expect((await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "q" } })).outcome.ok).toBe(
      true,
    );
  });
});

describe("one code's calls never change another's", () => {
  it("100 calls of one code interleaved with hostile calls of another all answer alike", async () => {
    const hostile = [
      beforeCode(`for (;;) {}`),
      beforeCode(`const keep = []; for (;;) keep.push(new Float64Array(1 << 20));`),
      beforeCode(`Object.prototype.toJSON = () => "poisoned"; globalThis.JSON = null; return null;`),
    ];
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        if (i % 10 === 0) await call(images, hostile[(i / 10) % hostile.length] ?? "", "before", {});
        return call(images, SEED_ADAPTER, "before", { arguments: { query: `q${i % 3}` } });
      }),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.outcome).toEqual({
        ok: true,
        value: { action: "continue", arguments: { q: `release: q${i % 3}` } },
      });
    }
  });
});

describe("engine traps", () => {
  it("a retired engine's images are rebuilt on the next instance", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const sandbox = createAdapterSandbox(engines);
    const before = await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "q" } });
    const first = await engines.get();
    engines.retire(first);
    const after = await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "q" } });
    expect(comparable(after)).toEqual(comparable(before));
    expect(await engines.get()).not.toBe(first);
  });
});
