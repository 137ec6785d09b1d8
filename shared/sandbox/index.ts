// Public entry of the sandbox for Workers code. Other runtimes (the Node
// bench) build their own provider with createEngineProvider and a wasm module.
import { isolateRequests } from "./activity";
import { createAdapterSandbox } from "./adapter";
import { canAllocate } from "./engine";
import { runInvocation } from "./invocation";
import { createModuleSandbox, type ModuleCall, type ModuleReturn } from "./module-exports";
import type { HostCall, Session } from "./session";
import type { InvocationReport, SandboxError } from "./types";
import { asyncEngines, workerdEngines } from "./wasm-workerd";

export type * from "./types";
export { createAdapterSandbox, type AdapterSandboxOptions } from "./adapter";
export { POOL_DEFAULTS, type PoolOptions, type PoolStats } from "./pool";
export { isolateRequests, RequestActivity, type Activity } from "./activity";
export { createEngineProvider, type EngineProvider, type WasmSource } from "./engine";
export { runInvocation, MODULE_CLOCK_MS, MODULE_SEED, type InvocationOptions } from "./invocation";
export { REASON_ID, OUTCOME_TEXT_CHARS } from "./outcome";
export { FUEL } from "./fuel";
export type { HostCall, Session } from "./session";
export type { PreludeExtension } from "./prelude";
export {
  createModuleSandbox,
  moduleExtension,
  type ModuleCall,
  type ModuleReturn,
  type ModuleShape,
} from "./module-exports";

// Refills build between requests where they can (activity.ts); the gateway counts its requests.
const adapters = createAdapterSandbox(workerdEngines, { pool: { activity: isolateRequests } });

/** Evaluates a compiled adapter once and reads its definition (compile time). */
export const inspectAdapter = adapters.inspectAdapter;
/** Runs one adapter stage in a pre-warmed single-use sandbox when one is ready, else a fresh one. */
export const runAdapterStage = adapters.runAdapterStage;
/**
 * Refills the warm pool for one compiled code, off the critical path:
 * `ctx.waitUntil(warmAdapter(code))` after a response that ran the code.
 * Never rejects.
 */
export const warmAdapter = adapters.warmAdapter;
/** Warm pool counters (tests, benches, diagnostics). */
export const adapterPoolStats = adapters.poolStats;

const modules = createModuleSandbox(workerdEngines);

/** Evaluates a compiled workspace file once and reads what it exports (compile time). */
export const inspectModule = modules.inspectModule;
/** Runs one exported function of a compiled workspace file in a fresh sandbox. */
export const runModuleExport = modules.runModuleExport;

/**
 * Memory (contiguous bytes) the async engine must still be able to allocate
 * when a hook suspends on a host call. A hook that would suspend with less
 * left is the one holding memory other suspended hooks need to resume: it is
 * stopped there, before any of them can run again.
 */
export const ASYNC_SUSPEND_RESERVE_BYTES = 4 * 1024 * 1024;

/** A module run that may await host capabilities (request hooks, nested lambdas). */
export interface AsyncModuleCall extends ModuleCall {
  /** The top level's own budget (default LIMITS.fuelPerInvocation). */
  moduleFuel?: number;
}

const HELD_MEMORY: SandboxError = {
  code: "hook_out_of_memory",
  message: "the hook awaited a host call while holding the sandbox memory other hooks need to resume",
};

/**
 * Runs one exported function of a compiled workspace file in a fresh sandbox,
 * like `runModuleExport`, for code that awaits host capabilities. It runs on
 * its own engine (`asyncEngines`), and a hook may only suspend on a host call
 * while ASYNC_SUSPEND_RESERVE_BYTES can still be allocated: otherwise the call
 * is refused and the hook stopped at once (its meter is spent, so it cannot
 * catch its way on), and the run reports hook_out_of_memory. The check runs
 * synchronously inside the hook's own turn, so its memory is released before
 * any other hook's awaited I/O can resume it.
 */
export async function runAsyncModuleExport(call: AsyncModuleCall): Promise<InvocationReport<ModuleReturn>> {
  const label = `${call.exportPath.join(".")}'s return value`;
  let session: Session | undefined;
  let heldMemory = false;
  const guard =
    (hostCall: HostCall): HostCall =>
    (input) => {
      if (session !== undefined && !canAllocate(session.engine, ASYNC_SUSPEND_RESERVE_BYTES)) {
        heldMemory = true;
        session.meter.exhausted = true;
        return Promise.reject(new Error(HELD_MEMORY.message));
      }
      return hostCall(input);
    };
  const hostCalls =
    call.hostCalls === undefined
      ? undefined
      : Object.fromEntries(Object.entries(call.hostCalls).map(([name, hostCall]) => [name, guard(hostCall)]));
  const report = await runInvocation(
    asyncEngines,
    {
      code: call.code,
      extensions: call.extensions ?? [],
      nowMs: call.nowMs,
      seed: call.seed,
      ...(hostCalls === undefined ? {} : { hostCalls }),
      ...(call.fuel === undefined ? {} : { fuel: call.fuel }),
      ...(call.moduleFuel === undefined ? {} : { moduleFuel: call.moduleFuel }),
    },
    async (opened) => {
      session = opened;
      const value = await opened.invokeOptional(call.exportPath, "json", [call.input], label);
      return value === undefined ? {} : { value };
    },
  );
  return heldMemory ? { ...report, outcome: { ok: false, error: HELD_MEMORY } } : report;
}
