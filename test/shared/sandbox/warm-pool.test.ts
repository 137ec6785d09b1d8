// Pre-warmed single-use sessions (shared/sandbox/pool.ts): a warm call gives
// exactly what a fresh one gives (outcome, logs, fuel, clock, randomness),
// hostile top-level code learns nothing of the call that later uses its
// session, fuel is accounted per phase, and the pool stays bounded and
// healthy through memory exhaustion and engine traps.
import { afterEach, describe, expect, it } from "vitest";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import type { Json } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import {
  createAdapterSandbox,
  createEngineProvider,
  MODULE_CLOCK_MS,
  type PoolOptions,
  RequestActivity,
} from "../../../shared/sandbox";
import type { AdapterStage, InvocationReport, ToolCallContext } from "../../../shared/sandbox/types";
import { ADAPTER_2KB, adapterCode, beforeCode, CONTINUE, moduleCode, SEED_ADAPTER } from "./code";
import { failure, failureOf, okValue, testContext } from "./helpers";

// One instance for most tests: fresh and pooled sandboxes share it, as in a Worker.
const provider = createEngineProvider(() => wasmModule);
const fresh = createAdapterSandbox(provider, { pool: false });

type Sandbox = ReturnType<typeof createAdapterSandbox>;

// Warm sessions hold memory in their engine, and pools shared by a describe
// carry sessions from one test to the next: every pool is emptied after each
// test, so no test's outcome depends on which tests ran before it.
const pooled = new Set<Sandbox>();
afterEach(() => {
  for (const sandbox of pooled) sandbox.clearPool();
});

function pooledSandbox(options: Partial<PoolOptions> = {}, engines = provider) {
  const sandbox = createAdapterSandbox(engines, { pool: options });
  pooled.add(sandbox);
  return sandbox;
}

function call(
  sandbox: Sandbox,
  code: string,
  stage: AdapterStage,
  input: { arguments?: Json; result?: Json },
  context?: ToolCallContext,
) {
  return sandbox.runAdapterStage({ code, stage, context: context ?? testContext(), ...input });
}

/** Runs one call that must be served by a warm session. */
async function warmCall(
  sandbox: Sandbox,
  code: string,
  stage: AdapterStage,
  input: { arguments?: Json; result?: Json },
  context?: ToolCallContext,
) {
  await sandbox.warmAdapter(code);
  const before = sandbox.poolStats();
  const report = await call(sandbox, code, stage, input, context);
  expect(sandbox.poolStats()?.hits).toBe((before?.hits ?? 0) + 1);
  return report;
}

const args = (value: unknown) => (value as { arguments: Record<string, Json> }).arguments;

const comparable = (report: InvocationReport<unknown>) => ({
  outcome: report.outcome,
  logs: report.logs,
  fuelUsed: report.fuelUsed,
});

const PROBE = moduleCode(`
  const topNow = Date.now();
  const topDate = new Date().toISOString();
  const topRandom = [Math.random(), Math.random()];
  for (let i = 0; i < 50; i++) Math.random();
  return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
    before({ context }) {
      return { action: "continue", arguments: {
        now: Date.now(), iso: new Date().toISOString(), random: [Math.random(), Math.random(), Math.random()],
        topNow, topDate, topRandom, requestId: context.requestId } };
    } }) };
`);

describe("warm calls equal fresh calls", () => {
  const sandbox = pooledSandbox();

  it("seed and ~2 KB adapters: same outcome, logs and fuel for before and after", async () => {
    const cases: [string, AdapterStage, { arguments?: Json; result?: Json }][] = [
      [SEED_ADAPTER, "before", { arguments: { query: "v2" } }],
      [SEED_ADAPTER, "after", { result: { items: [{ id: 1 }], total: 1 } }],
      [ADAPTER_2KB, "before", { arguments: { query: "The Workers release", limit: 50, product: "d1" } }],
      [ADAPTER_2KB, "before", { arguments: { query: "the of and" } }],
      [ADAPTER_2KB, "after", { result: { items: [{ id: 1, summary: "mail a@b.co", extra: true }] } }],
    ];
    for (const [code, stage, input] of cases) {
      const warm = await warmCall(sandbox, code, stage, input);
      const cold = await call(fresh, code, stage, input);
      expect(warm.outcome.ok).toBe(true);
      expect(comparable(warm)).toEqual(comparable(cold));
    }
  });

  it("Date and Math.random inside a call are the call's, whatever the top level drew", async () => {
    for (const requestId of ["req_a", "req_b"]) {
      const context = testContext({ requestId, calledAt: "2031-01-02T03:04:05.678Z" });
      const warm = okValue(await warmCall(sandbox, PROBE, "before", { arguments: {} }, context));
      const cold = okValue(await call(fresh, PROBE, "before", { arguments: {} }, context));
      expect(warm).toEqual(cold);
      const value = (warm as { arguments: Record<string, Json> }).arguments;
      expect(value.now).toBe(Date.parse(context.calledAt));
      expect(value.iso).toBe(context.calledAt);
      expect(value.requestId).toBe(requestId);
      // The top level runs before any call exists: fixed clock and seed.
      expect(value.topNow).toBe(MODULE_CLOCK_MS);
      expect(value.topDate).toBe(new Date(MODULE_CLOCK_MS).toISOString());
    }
    const a = okValue(await warmCall(sandbox, PROBE, "before", {}, testContext({ requestId: "req_a" })));
    const b = okValue(await warmCall(sandbox, PROBE, "before", {}, testContext({ requestId: "req_b" })));
    expect(args(a).random).not.toEqual(args(b).random);
    expect(args(a).topRandom).toEqual(args(b).topRandom);
  });
});

// Traps a hostile top level plants before any call exists. Each records what
// it saw in a global list that the stage then returns.
const HOSTILE_TOP_LEVEL = `
  const seen = [];
  const str = JSON.stringify;
  globalThis.__seen = seen;
  const note = (what) => { try { seen.push(String(what).slice(0, 200)); } catch {} };
  for (const key of ["arguments", "result", "context", "requestId", "calledAt", "config", "token", "q", "action", "kind", "message"]) {
    Object.defineProperty(Object.prototype, key, {
      configurable: true,
      get() { note("get " + key); return undefined; },
      set(v) { note("set " + key + "=" + str(v)); },
    });
  }
  const realProto = Object.getPrototypeOf(globalThis);
  try {
    Object.setPrototypeOf(globalThis, new Proxy(realProto, {
      get(t, k, r) { note("global get " + String(k)); return Reflect.get(t, k, r); },
      has(t, k) { note("global has " + String(k)); return Reflect.has(t, k); },
    }));
  } catch (e) { note("no proxy prototype: " + e); }
  const wrap = (obj, name) => {
    const original = obj[name];
    obj[name] = function (...args) { note(name + " " + str(args)); return original.apply(this, args); };
  };
  wrap(JSON, "parse"); wrap(JSON, "stringify"); wrap(Object, "defineProperty"); wrap(Object, "create");
  wrap(Object, "freeze"); wrap(Reflect, "apply"); wrap(Reflect, "defineProperty"); wrap(Array.prototype, "map");
  const realDate = Date;
  Object.defineProperty(globalThis, "Date", { get() { note("global Date read"); return realDate; }, configurable: true });
  // Last, as it breaks every later descriptor literal (including the hook's own).
  const valueTrap = Object.create(null);
  valueTrap.configurable = true;
  valueTrap.get = function () { note("get value"); return undefined; };
  Object.defineProperty(Object.prototype, "value", valueTrap);
`;

describe("isolation of pre-warmed sessions", () => {
  const sandbox = pooledSandbox({ perCode: 2 });
  const hostile = moduleCode(`
    ${HOSTILE_TOP_LEVEL}
    return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
      before({ arguments: args }) {
        // Traces an earlier call may have left, then this call's own.
        const previous = String(globalThis.__stash) + "|" + String(({}).__stash);
        globalThis.__stash = args.token;
        Object.prototype.__stash = args.token;
        const report = { seen: globalThis.__seen.slice(), stash: previous };
        return { action: "continue", arguments: { echoed: args.token, report: JSON.parse(globalThis.JSON.stringify(report)) } };
      } }) };
  `);

  it("traps planted by the top level see none of the call's values, and the call's outcome is intact", async () => {
    await sandbox.warmAdapter(hostile);
    expect(sandbox.poolStats()?.warm).toBe(2);
    const first = okValue(await warmCall(sandbox, hostile, "before", { arguments: { token: "secret-A" } }));
    const second = okValue(await warmCall(sandbox, hostile, "before", { arguments: { token: "secret-B" } }));
    for (const [value, own, other] of [
      [first, "secret-A", "secret-B"],
      [second, "secret-B", "secret-A"],
    ] as const) {
      expect(value.action).toBe("continue");
      const got = (
        value as unknown as { arguments: { echoed: string; report: { seen: string[]; stash: string } } }
      ).arguments;
      expect(got.echoed).toBe(own);
      const text = JSON.stringify(got.report);
      // Only the hook's own stage code may have touched its values; the
      // platform's handling of the call never ran a planted trap with them.
      expect(text).not.toContain(other);
      const platformTraces = got.report.seen.filter(
        (s) => s.includes(own) && !s.startsWith("stringify") && !s.startsWith("parse"),
      );
      expect(platformTraces).toEqual([]);
      expect(got.report.stash).toBe("undefined|undefined");
    }
    // Same results as a fresh session would give.
    const cold = okValue(await call(fresh, hostile, "before", { arguments: { token: "secret-A" } }));
    expect(cold).toEqual(first);
  });

  it("the rehearsal that prepares a session runs none of the traps its top level planted", async () => {
    const watcher = moduleCode(`
      ${HOSTILE_TOP_LEVEL}
      // Its own statements trip some traps while planting them; anything after this is someone else's.
      const plantedAt = globalThis.__seen.length;
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before() { return { action: "continue", arguments: { seen: globalThis.__seen.slice(plantedAt) } }; } }) };
    `);
    await sandbox.warmAdapter(watcher);
    for (const sandboxUsed of [sandbox, fresh]) {
      const value = okValue(await call(sandboxUsed, watcher, "before", { arguments: {} }));
      expect(args(value).seen).toEqual([]);
    }
    expect(sandbox.poolStats()?.hits).toBeGreaterThan(0);
  });

  it("a top level that vandalises prototypes still warms, and its calls fail as fresh ones do", async () => {
    const vandal = moduleCode(`
      Object.prototype.toJSON = () => "planted";
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before({ arguments: args }) { return { action: "continue", arguments: args }; } }) };
    `);
    await sandbox.warmAdapter(vandal);
    expect(sandbox.poolStats()?.warm).toBeGreaterThan(0);
    const warm = await warmCall(sandbox, vandal, "before", { arguments: { q: "x" } });
    const cold = await call(fresh, vandal, "before", { arguments: { q: "x" } });
    expect(failureOf(warm)).toEqual(failure("hook_invalid_return", /toJSON/));
    expect(comparable(warm)).toEqual(comparable(cold));
  });

  it("a hostile code's pooled sessions do not affect other codes' calls", async () => {
    await sandbox.warmAdapter(hostile);
    await sandbox.warmAdapter(SEED_ADAPTER);
    const report = await warmCall(sandbox, SEED_ADAPTER, "before", { arguments: { query: "v2" } });
    expect(report.outcome).toEqual({
      ok: true,
      value: { action: "continue", arguments: { q: "release: v2" } },
    });
    expect(report.logs).toEqual([{ level: "info", message: "Preparing search", data: { query: "v2" } }]);
  });

  it("a session serves exactly one call: state left by a call is never seen by the next", async () => {
    const counter = moduleCode(`
      let calls = 0;
      return { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
        before() { calls++; globalThis.total = (globalThis.total ?? 0) + 1; return { action: "continue", arguments: { calls, total: globalThis.total } }; } }) };
    `);
    for (let i = 0; i < 4; i++) {
      const value = okValue(await warmCall(sandbox, counter, "before", {}));
      expect(value).toEqual({ action: "continue", arguments: { calls: 1, total: 1 } });
    }
  });
});

const loopBody = (n: number) => `let x = 0; for (let i = 0; i < ${n}; i++) x++;`;

describe("fuel is accounted per phase", () => {
  const phased = pooledSandbox();

  it("the top level has its own budget: top level + stage may together exceed one budget, warm or fresh alike", async () => {
    const small = await call(fresh, beforeCode(`${loopBody(10_000)} ${CONTINUE}`), "before", {});
    const large = await call(fresh, beforeCode(`${loopBody(20_000)} ${CONTINUE}`), "before", {});
    const perIteration = (large.fuelUsed - small.fuelUsed) / 10_000;
    const n = Math.floor((0.6 * LIMITS.fuelPerInvocation) / perIteration);
    const code = `${loopBody(n)}\n` + beforeCode(`${loopBody(n)} ${CONTINUE}`);
    const stageOnly = await call(fresh, beforeCode(`${loopBody(n)} ${CONTINUE}`), "before", {});
    const warm = await warmCall(phased, code, "before", {});
    const cold = await call(fresh, code, "before", {});
    expect(okValue(warm)).toBeDefined();
    expect(comparable(warm)).toEqual(comparable(cold));
    // Only the call's own work counts; the top level's 60 % is not in it.
    expect(warm.fuelUsed).toBeGreaterThan(0.55 * LIMITS.fuelPerInvocation);
    expect(warm.fuelUsed).toBeLessThan(stageOnly.fuelUsed + 5_000);
  });

  it("a top level that exhausts its budget fails at warm time; calls report the failure without running it again", async () => {
    const own = pooledSandbox();
    const code = `for (;;) {}\n` + beforeCode(CONTINUE);
    await own.warmAdapter(code);
    expect(own.poolStats()).toMatchObject({ warm: 0, created: 0, remembered: 0 });
    const remembered = 0;
    const report = await call(own, code, "before", {});
    expect(failureOf(report)).toEqual(failure("hook_timeout", /top level used its whole fuel budget/));
    expect(report.fuelUsed).toBeGreaterThanOrEqual(LIMITS.fuelPerInvocation);
    expect(own.poolStats()?.remembered).toBe(remembered + 1);
    // A fresh run reports exactly the same.
    expect(comparable(await call(fresh, code, "before", {}))).toEqual(comparable(report));
    // Warming again does not retry it.
    const created = own.poolStats()?.created;
    await own.warmAdapter(code);
    expect(own.poolStats()?.created).toBe(created);
  });

  it("a top level that throws is remembered the same way", async () => {
    const code = `throw new RangeError("bad top level");\n` + beforeCode(CONTINUE);
    await phased.warmAdapter(code);
    const report = await call(phased, code, "before", {});
    expect(failureOf(report)).toEqual({ code: "hook_threw", message: "RangeError: bad top level" });
  });

  it("a stage that exhausts the budget in a warm session fails like a fresh one", async () => {
    const code = beforeCode(`for (;;) {}`);
    const warm = await warmCall(phased, code, "before", {});
    expect(failureOf(warm)).toEqual(failure("hook_timeout", /the hook used its whole fuel budget/));
    expect(comparable(warm)).toEqual(comparable(await call(fresh, code, "before", {})));
  });
});

describe("bounds", () => {
  it("caps sessions per code and overall, evicting the least recently used code", async () => {
    const sandbox = pooledSandbox({ perCode: 2, total: 3 });
    const a = adapterCode(`before() { return { action: "continue", arguments: { a: 1 } }; }`);
    const b = adapterCode(`before() { return { action: "continue", arguments: { b: 1 } }; }`);
    await sandbox.warmAdapter(a);
    expect(sandbox.poolStats()?.warm).toBe(2);
    await sandbox.warmAdapter(a);
    expect(sandbox.poolStats()?.warm).toBe(2);
    await sandbox.warmAdapter(b);
    expect(sandbox.poolStats()?.warm).toBeLessThanOrEqual(3);
    // b got both of its sessions; a gave way.
    await warmCall(sandbox, b, "before", {});
    const misses = sandbox.poolStats()?.misses ?? 0;
    expect(okValue(await call(sandbox, a, "before", {}))).toEqual({
      action: "continue",
      arguments: { a: 1 },
    });
    expect(sandbox.poolStats()?.misses).toBe(misses + 1);
  });

  it("drops the sessions of a code idle for idleMs", async () => {
    let now = 1_000_000;
    const sandbox = pooledSandbox({ idleMs: 60_000, now: () => now });
    await sandbox.warmAdapter(SEED_ADAPTER);
    expect(sandbox.poolStats()?.warm).toBe(4);
    now += 61_000;
    const report = await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "x" } });
    expect(okValue(report)).toEqual({ action: "continue", arguments: { q: "release: x" } });
    expect(sandbox.poolStats()).toMatchObject({ warm: 0, misses: 1, hits: 0 });
  });

  it("never grows the pool into the memory reserve calls need", async () => {
    const sandbox = pooledSandbox({ reserveBytes: LIMITS.sandboxMemoryBytes });
    await sandbox.warmAdapter(SEED_ADAPTER);
    expect(sandbox.poolStats()).toMatchObject({ warm: 0, created: 0 });
    expect(sandbox.poolStats()?.reserveStops).toBeGreaterThan(0);
    expect(okValue(await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "x" } }))).toBeDefined();
  });

  it("does not keep sessions whose top level holds a lot of memory", async () => {
    const sandbox = pooledSandbox({ maxContextBytes: 1024 * 1024 });
    const heavy =
      `var keep = new Uint8Array(2 * 1024 * 1024);\n` +
      beforeCode(`return { action: "continue", arguments: { n: keep.length } };`);
    await sandbox.warmAdapter(heavy);
    expect(sandbox.poolStats()?.warm).toBe(0);
    expect(okValue(await call(sandbox, heavy, "before", {}))).toEqual({
      action: "continue",
      arguments: { n: 2 * 1024 * 1024 },
    });
  });
});

/** A pool (own engine: other tests' sessions would count against the memory reserve) and one request in flight. */
function busyPool() {
  const requests = new RequestActivity();
  const sandbox = pooledSandbox(
    { perCode: 4, urgent: 2, activity: requests },
    createEngineProvider(() => wasmModule),
  );
  const { promise: handled, resolve: finishRequest } = Promise.withResolvers<void>();
  const inFlight = requests.track(() => handled);
  const warmCount = () => sandbox.poolStats()?.warm ?? 0;
  /** Waits for `n` warm sessions, then a few more turns so the refill reaches its next wait. */
  const settle = async (n: number) => {
    for (let i = 0; i < 20 && warmCount() < n; i++) await scheduler.wait(1);
    for (let i = 0; i < 5; i++) await scheduler.wait(1);
  };
  const endRequest = async () => {
    finishRequest();
    await inFlight;
  };
  return { requests, sandbox, warmCount, settle, endRequest };
}

describe("refills and requests in flight", () => {
  it("while a request is in flight a refill builds only up to one call's need, and the rest once it ends", async () => {
    const { requests, sandbox, warmCount, settle, endRequest } = busyPool();
    expect(requests.busy).toBe(true);
    let refilled = false;
    const refill = sandbox.warmAdapter(SEED_ADAPTER).then(() => (refilled = true));
    await settle(2);
    expect(warmCount()).toBe(2);
    expect(refilled).toBe(false);
    // The in-flight request is served by those sessions.
    expect(okValue(await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "x" } }))).toEqual({
      action: "continue",
      arguments: { q: "release: x" },
    });
    await endRequest();
    await refill;
    expect(requests.busy).toBe(false);
    expect(warmCount()).toBe(4);
  });

  it("a refill waiting for a quiet moment builds at once when calls leave the code short", async () => {
    const { requests, sandbox, warmCount, settle, endRequest } = busyPool();
    const refill = sandbox.warmAdapter(SEED_ADAPTER);
    await settle(2);
    expect(warmCount()).toBe(2);
    // Two calls take both sessions while the request is still in flight: the waiting refill wakes.
    for (let i = 0; i < 2; i++) await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "x" } });
    expect(warmCount()).toBe(0);
    await settle(2);
    expect(warmCount()).toBe(2);
    expect(requests.busy).toBe(true);
    await endRequest();
    await refill;
    expect(warmCount()).toBe(4);
  });

  it("without requests in flight a refill fills the code at once", async () => {
    const requests = new RequestActivity();
    const sandbox = pooledSandbox(
      { perCode: 3, activity: requests },
      createEngineProvider(() => wasmModule),
    );
    await sandbox.warmAdapter(SEED_ADAPTER);
    expect(sandbox.poolStats()?.warm).toBe(3);
  });
});

describe("memory exhaustion and engine traps", () => {
  it("a memory bomb does not break the pooled sessions of other codes", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const sandbox = pooledSandbox({}, engines);
    await sandbox.warmAdapter(SEED_ADAPTER);
    await sandbox.warmAdapter(ADAPTER_2KB);
    const bomb = beforeCode(`const keep = []; for (;;) keep.push(new Uint8Array(1 << 20)); ${CONTINUE}`);
    expect(failureOf(await call(sandbox, bomb, "before", {}))).toEqual(failure("hook_out_of_memory"));
    await sandbox.warmAdapter(bomb);
    expect(failureOf(await call(sandbox, bomb, "before", {}))).toEqual(failure("hook_out_of_memory"));
    // The other codes' warm sessions still give the right answers, and refills work.
    for (let i = 0; i < 6; i++) {
      const seed = await warmCall(sandbox, SEED_ADAPTER, "before", { arguments: { query: "v" + i } });
      expect(seed.outcome).toEqual({
        ok: true,
        value: { action: "continue", arguments: { q: "release: v" + i } },
      });
      const two = await warmCall(sandbox, ADAPTER_2KB, "after", { result: { items: [{ id: i }] } });
      expect(okValue(two)).toEqual({ action: "return", result: { items: [{ id: i }], total: 1 } });
    }
  });

  it("a top level that exhausts memory fails closed and leaves the pool usable", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const sandbox = pooledSandbox({}, engines);
    await sandbox.warmAdapter(SEED_ADAPTER);
    const bomb = `const keep = []; for (;;) keep.push(new Uint8Array(1 << 20));\n` + beforeCode(CONTINUE);
    await sandbox.warmAdapter(bomb);
    expect(failureOf(await call(sandbox, bomb, "before", {}))).toEqual(failure("hook_out_of_memory"));
    const seed = await warmCall(sandbox, SEED_ADAPTER, "before", { arguments: { query: "ok" } });
    expect(okValue(seed)).toEqual({ action: "continue", arguments: { q: "release: ok" } });
  });

  it("after a wasm trap the engine is replaced and the pool is rebuilt on the new one", async () => {
    const engines = createEngineProvider(() => wasmModule);
    const sandbox = pooledSandbox({}, engines);
    await sandbox.warmAdapter(SEED_ADAPTER);
    const first = await engines.get();
    expect(sandbox.poolStats()?.warm).toBe(4);
    // What the invocation core does on any wasm trap (a RuntimeError cannot be provoked on demand).
    engines.retire(first);
    const report = await call(sandbox, SEED_ADAPTER, "before", { arguments: { query: "after" } });
    expect(okValue(report)).toEqual({ action: "continue", arguments: { q: "release: after" } });
    expect(await engines.get()).not.toBe(first);
    expect(sandbox.poolStats()?.warm).toBe(0);
    await warmCall(sandbox, SEED_ADAPTER, "before", { arguments: { query: "again" } });
  });
});
