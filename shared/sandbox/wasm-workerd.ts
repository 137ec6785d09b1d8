// The QuickJS wasm as a pre-compiled module: Workers cannot compile
// WebAssembly from bytes at run time (wrangler's CompiledWasm rule imports it).
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { createEngineProvider } from "./engine";

/**
 * The isolate's one instance: every hook kind's calls run in it, each from
 * its code's memory image. Calls that await host capabilities park their
 * state while they wait (residency.ts), so they never hold it.
 */
export const workerdEngines = createEngineProvider(() => wasmModule);
