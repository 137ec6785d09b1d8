// Public entry of the sandbox for Workers code. Other runtimes (the Node
// bench) build their own provider with createEngineProvider and a wasm module.
import { createAdapterSandbox } from "./adapter";
import { workerdEngines } from "./wasm-workerd";

export type * from "./types";
export { createAdapterSandbox, type AdapterSandboxOptions } from "./adapter";
export { POOL_DEFAULTS, type PoolOptions, type PoolStats } from "./pool";
export { createEngineProvider, type EngineProvider, type WasmSource } from "./engine";
export { runInvocation, MODULE_CLOCK_MS, MODULE_SEED, type InvocationOptions } from "./invocation";
export { REASON_ID, OUTCOME_TEXT_CHARS } from "./outcome";
export { FUEL } from "./fuel";
export type { HostCall, Session } from "./session";
export type { PreludeExtension } from "./prelude";

const adapters = createAdapterSandbox(workerdEngines);

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
