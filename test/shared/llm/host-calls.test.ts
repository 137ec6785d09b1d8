// The request hook's private `rayrun.*` bridge (shared/llm/host-calls.ts):
// wall-clock bounds on awaited capabilities, input checks, and shared memory
// across concurrent hooks.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopPolicy } from "../../../shared/config/loops";
import { DEFAULT_CONFIG } from "../../../shared/config/schema";
import { hostCallsFor, TIME_UP, type HostContext } from "../../../shared/llm/host-calls";
import { runAdapterStage, runModuleExport } from "../../../shared/sandbox";
import { workerdEngines } from "../../../shared/sandbox/wasm-workerd";
import { adapterCode, moduleCode, testContext } from "../sandbox/helpers";
import {
  deployLib,
  failed,
  hookConfig,
  hookWorkspace,
  runHook,
  sampleRequest,
  setConfig,
  transformed,
  type HookWorkspace,
} from "./harness";

/** A gate the test opens by hand, and whether the call behind it got through. */
function gate() {
  const opened = Promise.withResolvers<void>();
  const reached = Promise.withResolvers<void>();
  return {
    open: () => opened.resolve(),
    opened: opened.promise,
    entered: () => reached.resolve(),
    reached: reached.promise,
    finished: false,
  };
}

/**
 * Bindings for the hook's capabilities whose code reads (what `rayrun.lambda`
 * does first for a file it has not run yet: its compiled code from R2) wait
 * for `g` to open: a slow backend.
 */
function slowBackend(g: ReturnType<typeof gate>): HostContext["env"] {
  const code = {
    get: async (key: string) => {
      g.entered();
      await g.opened;
      const object = await env.CODE.get(key);
      g.finished = true;
      return object;
    },
  };
  return {
    DB: env.DB,
    CODE: code as unknown as R2Bucket,
    RAYRUN_BOOTSTRAP_KEY: env.RAYRUN_BOOTSTRAP_KEY,
    WORKSPACE: env.WORKSPACE,
  };
}

const LOOKUP = `export function lookup(args) { return { found: args }; }`;

async function slowLambdaWorkspace(transform: string, hook: Record<string, unknown>, config = {}) {
  const w = await hookWorkspace();
  await deployLib(w, "lib/lookup.ts", LOOKUP);
  await deployLib(w, "lib/request-policy.ts", transform);
  await setConfig(w, { pre_llm_hook: hookConfig(hook), code_execution: { sys_lambda: true }, ...config });
  return w;
}

const AWAITS_LAMBDA = `
export async function transform({ request }) {
  const { found } = await rayrun.lambda({ source: "lib/lookup.ts:lookup", args: "x" });
  return { ...request, system: "found " + found };
}`;

const SWALLOWS_TIMEOUT = `
export async function transform({ request }) {
  try {
    await rayrun.lambda({ source: "lib/lookup.ts:lookup", args: "x" });
  } catch {
    // Falls back to the original request: exactly what a timeout must not send.
  }
  return request;
}`;

describe("awaited capabilities count against timeout_ms (wall clock)", () => {
  it("a hook awaiting a slow host call past its timeout_ms fails with request_hook_timeout without waiting for it", async () => {
    const w = await slowLambdaWorkspace(AWAITS_LAMBDA, { timeout_ms: 100 });
    const g = gate();
    const failure = failed(await runHook(w, "main", sampleRequest(), { host: { env: slowBackend(g) } }));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toMatch(/ran longer than its 100 ms/);
    // The hook's outcome came while the slow call was still stuck.
    expect(g.finished).toBe(false);
    g.open();
  });

  it("catching the cut-off call and returning the original request still fails closed", async () => {
    const w = await slowLambdaWorkspace(SWALLOWS_TIMEOUT, { timeout_ms: 100 });
    const g = gate();
    const failure = failed(await runHook(w, "main", sampleRequest(), { host: { env: slowBackend(g) } }));
    expect(failure.code).toBe("request_hook_timeout");
    g.open();
  });

  it("timeout_ms is capped by limits.execution_timeout_ms for awaited calls too", async () => {
    const w = await slowLambdaWorkspace(
      AWAITS_LAMBDA,
      { timeout_ms: 60_000 },
      { limits: { execution_timeout_ms: 80 } },
    );
    const g = gate();
    const failure = failed(await runHook(w, "main", sampleRequest(), { host: { env: slowBackend(g) } }));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toMatch(/ran longer than its 80 ms/);
    g.open();
  });

  it("a host call that answers in time is not a timeout", async () => {
    const w = await slowLambdaWorkspace(AWAITS_LAMBDA, { timeout_ms: 5000 });
    const g = gate();
    const pending = runHook(w, "main", sampleRequest(), { host: { env: slowBackend(g) } });
    await g.reached;
    g.open();
    expect(transformed(await pending).system).toBe("found x");
  });
});

const context = (overrides: Partial<HostContext> = {}): HostContext => ({
  env,
  workspaceUid: "ws_none",
  requestId: "r1",
  config: { ...DEFAULT_CONFIG, code_execution: { sys_lambda: true } },
  deadline: Date.now() + 5000,
  policy: loopPolicy({}, "main"),
  ...overrides,
});

describe("structural recovery from an engine failure", () => {
  it("an engine replaced while the hook awaits is retried in a fresh sandbox when recovery.structuralRetries allows", async () => {
    const outcomes = [];
    for (const structuralRetries of [0, 1]) {
      const w = await slowLambdaWorkspace(AWAITS_LAMBDA, {}, { recovery: { structuralRetries } });
      const g = gate();
      const pending = runHook(w, "main", sampleRequest(), { host: { env: slowBackend(g) } });
      await g.reached;
      workerdEngines.retire(await workerdEngines.get());
      g.open();
      outcomes.push(await pending);
    }
    const [once, retried] = outcomes;
    expect(failed(once!)).toMatchObject({ code: "request_hook_error", structural: true, retried: [] });
    expect(failed(once!).message).toMatch(/engine failed while the hook awaited/);
    expect(transformed(retried!).system).toBe("found x");
    expect(retried).toMatchObject({
      run: { attempt: 2 },
      retried: [{ code: "request_hook_error", structural: true, run: { attempt: 1 } }],
    });
  });
});

describe("hostCallsFor", () => {
  it("every capability refuses once the deadline has passed, and marks the hook expired", async () => {
    const expired = { value: false };
    const calls = hostCallsFor(context({ deadline: Date.now() - 1, expired }));
    await expect(calls.lambda?.({ source: "lib/x.ts" })).rejects.toThrow(TIME_UP);
    await expect(calls.model?.({ provider: "openai", request: { messages: [] } })).rejects.toThrow(TIME_UP);
    expect(expired.value).toBe(true);
  });

  it("rayrun.lambda takes { source, args }", async () => {
    const calls = hostCallsFor(context());
    await expect(calls.lambda?.("lib/x.ts")).rejects.toThrow(
      /takes \{ source: "lib\/file\.ts:function", args \}/,
    );
    await expect(calls.lambda?.({ source: "lib/x.ts:not-an-identifier" })).rejects.toThrow(
      /is not a lib\/ source/,
    );
  });

  it("rayrun.model takes { provider, request } with a valid neutral request (tools and options may be left out)", async () => {
    const calls = hostCallsFor(context());
    await expect(calls.model?.({ provider: "mistral", request: {} })).rejects.toThrow(
      /takes \{ provider: "openai" \| "anthropic", request \}/,
    );
    await expect(
      calls.model?.({ provider: "openai", request: { messages: [{ role: "system", content: "x" }] } }),
    ).rejects.toThrow(/invalid request: \/messages\/0\/role/);
    // A valid request without tools/options gets as far as the (unconfigured) provider.
    await expect(
      calls.model?.({
        provider: "openai",
        request: { model: "m", messages: [{ role: "user", content: "x" }] },
      }),
    ).rejects.toThrow(/names no openai provider/);
  });
});

// A hook that allocates until the sandbox refuses: 16 MiB typed arrays (a few
// steps, so memory runs out before the fuel that holding it costs).
const BOMB = `
export function transform({ request }) {
  const keep = [];
  for (;;) keep.push(new Uint8Array(1 << 24));
}`;

// Holds more than a waiting hook may set aside, and tries to await a host
// call holding it (catching the refusal, then returning the original request).
const HOLDING_BOMB = `
export async function transform({ request }) {
  const keep = [new Uint8Array(7 << 20), new Uint8Array(7 << 20), new Uint8Array(7 << 20)];
  try { await rayrun.lambda({ source: "lib/lookup.ts:lookup", args: keep.length }); } catch {}
  return request;
}`;

// Holds 12 MiB across a host call: its state is set aside while it waits.
const HOLDING_12_MIB = `
export async function transform({ request }) {
  const keep = [];
  for (let i = 0; i < 3; i++) keep.push(new Uint8Array(1 << 22));
  const { found } = await rayrun.lambda({ source: "lib/lookup.ts:lookup", args: keep.length * 4 });
  return { ...request, system: "held " + found };
}`;

// Awaits a host call, then needs fresh memory to build its answer.
const PATIENT = `
export async function transform({ request }) {
  const { found } = await rayrun.lambda({ source: "lib/lookup.ts:lookup", args: "after the bomb" });
  const padding = new Array(2000).fill("x").join("");
  return { ...request, system: found + " " + padding.length };
}`;

async function patientWorkspace(): Promise<HookWorkspace> {
  return slowLambdaWorkspace(PATIENT, {}, {});
}

describe("Shared memory across calls: a memory bomb in one hook does not fail a concurrent one", () => {
  it("a bomb that fails while another workspace's hook awaits a host call leaves that hook working", async () => {
    const patient = await patientWorkspace();
    const bomber = await hookWorkspace();
    await deployLib(bomber, "lib/request-policy.ts", BOMB);
    await setConfig(bomber, { pre_llm_hook: hookConfig() });

    const g = gate();
    const pending = runHook(patient, "main", sampleRequest(), { host: { env: slowBackend(g) } });
    await g.reached;
    const bombed = failed(await runHook(bomber, "main"));
    expect(bombed.code).toBe("request_hook_error");
    expect(bombed.message).toMatch(/hook_out_of_memory/);
    g.open();
    expect(transformed(await pending).system).toBe("after the bomb 2000");
  });

  it("a bomb that tries to await a host call holding the memory is stopped there, and the waiting hook resumes", async () => {
    const patient = await patientWorkspace();
    // Holding megabytes makes every step dear: a longer timeout lets the hook reach its await.
    const longer = { limits: { execution_timeout_ms: 30_000 } };
    const bomber = await slowLambdaWorkspace(HOLDING_BOMB, { timeout_ms: 30_000 }, longer);

    const patientGate = gate();
    const patientRun = runHook(patient, "main", sampleRequest(), { host: { env: slowBackend(patientGate) } });
    await patientGate.reached;
    const bomberGate = gate();
    const bombed = failed(
      await runHook(bomber, "main", sampleRequest(), { host: { env: slowBackend(bomberGate) } }),
    );
    // Catching the refused call does not let it go on: it fails closed, and never reached its backend.
    expect(bombed.code).toBe("request_hook_error");
    expect(bombed.message).toMatch(/hook_out_of_memory: the hook awaited a host call holding \d+ bytes/);
    expect(bombed.message).toContain("more than can be set aside while it waits");
    expect(bomberGate.finished).toBe(false);
    patientGate.open();
    expect(transformed(await patientRun).system).toBe("after the bomb 2000");
  });

  it("a hook awaiting a host call holds no sandbox memory: while it holds 12 MiB, calls that need 18 MiB run", async () => {
    // Holding megabytes makes every step dear: a longer timeout lets the hook reach its await.
    const longer = { limits: { execution_timeout_ms: 30_000 } };
    const holder = await slowLambdaWorkspace(HOLDING_12_MIB, { timeout_ms: 30_000 }, longer);
    const holderGate = gate();
    const holderRun = runHook(holder, "main", sampleRequest(), { host: { env: slowBackend(holderGate) } });
    await holderGate.reached;
    // Each needs 18 MiB: with the waiting hook's 12 MiB that is more than the heap's room in the instance's 32.
    const lambda = await runModuleExport({
      code: moduleCode(`return { main: (input) => {
        const keep = [new Uint8Array(6 << 20), new Uint8Array(6 << 20), new Uint8Array(6 << 20)];
        return { held: 18 * input };
      } };`),
      exportPath: ["main"],
      input: 1,
      nowMs: 0,
      seed: "s",
    });
    expect(lambda.outcome).toStrictEqual({ ok: true, value: { value: { held: 18 } } });
    const adapter = await runAdapterStage({
      code: adapterCode(`before: ({ arguments: args }) => {
        const keep = [new Uint8Array(6 << 20), new Uint8Array(6 << 20), new Uint8Array(6 << 20)];
        return { action: "continue", arguments: { ...args, held: keep.length * 6 } };
      }`),
      stage: "before",
      arguments: { q: 1 },
      context: testContext(),
    });
    expect(adapter.outcome).toStrictEqual({
      ok: true,
      value: { action: "continue", arguments: { q: 1, held: 18 } },
    });
    holderGate.open();
    expect(transformed(await holderRun).system).toBe("held 12");
  });
});
