// Public entry of the sandbox for Workers code. Other runtimes (the Node
// bench) build their own provider with createEngineProvider and a wasm module.
import { createAdapterSandbox } from "./adapter";
import type { ImageStats } from "./image/images";
import { createModuleSandbox } from "./module-exports";
import { workerdEngines } from "./wasm-workerd";

export type * from "./types";
export { createAdapterSandbox } from "./adapter";
export { createEngineProvider, type EngineProvider, type EngineOptions } from "./image/provider";
export type { WasmSource } from "./engine/engine";
export {
  runInvocation,
  inspectInvocation,
  MODULE_CLOCK_MS,
  MODULE_SEED,
  type ModuleSpec,
  type CallOptions,
} from "./invocation";
export { REASON_ID, OUTCOME_TEXT_CHARS } from "./call/outcome";
export { FUEL } from "./call/fuel";
export type { HostCall, Call } from "./call/call";
export { HostCallError } from "./call/call";
export type { ImageStats } from "./image/images";
export type { PreludeExtension } from "./prelude";
export {
  createModuleSandbox,
  moduleExtension,
  type ModuleCall,
  type ModuleReturn,
  type ModuleShape,
} from "./module-exports";

const adapters = createAdapterSandbox(workerdEngines);

/** Evaluates a compiled adapter once and reads its definition (compile time). */
export const inspectAdapter = adapters.inspectAdapter;
/** Runs one adapter stage from the code's memory image. */
export const runAdapterStage = adapters.runAdapterStage;

const modules = createModuleSandbox(workerdEngines);

/** Evaluates a compiled workspace file once and reads what it exports (compile time). */
export const inspectModule = modules.inspectModule;
/**
 * Runs one exported function of a compiled workspace file from the code's
 * memory image. The function may await host capabilities (request hooks,
 * plugins, nested lambdas): while it waits its state is set aside, and a hook
 * that holds more than can be set aside fails with hook_out_of_memory.
 */
export const runModuleExport = modules.runModuleExport;

/** The isolate's images: counts and bytes (tests, benches, diagnostics); null before the engine exists or without images. */
export async function sandboxStats(): Promise<ImageStats | null> {
  const engine = await workerdEngines.get();
  return engine.images?.stats() ?? null;
}
