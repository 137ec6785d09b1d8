// Public entry of the sandbox for Workers code. Other runtimes (the Node
// bench) build their own provider with createEngineProvider and a wasm module.
import { createAdapterSandbox } from "./adapter";
import { workerdEngines } from "./wasm-workerd";

export type * from "./types";
export { createAdapterSandbox } from "./adapter";
export { createEngineProvider, type EngineProvider, type WasmSource } from "./engine";
export { runInvocation, type InvocationOptions } from "./invocation";
export { REASON_ID, OUTCOME_TEXT_CHARS } from "./outcome";
export { FUEL } from "./fuel";
export type { HostCall, Session } from "./session";
export type { PreludeExtension } from "./prelude";

const adapters = createAdapterSandbox(workerdEngines);

/** Evaluates a compiled adapter once and reads its definition (compile time). */
export const inspectAdapter = adapters.inspectAdapter;
/** Runs one adapter stage in a fresh sandbox. */
export const runAdapterStage = adapters.runAdapterStage;
