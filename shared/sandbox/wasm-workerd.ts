// The QuickJS wasm as a pre-compiled module: Workers cannot compile
// WebAssembly from bytes at run time (wrangler's CompiledWasm rule imports it).
// It is the package's build with a loop meter added (engine/native-meter.ts), which
// `npm ci` writes (scripts/meter-wasm.mjs).
import wasmModule from "./wasm/quickjs-metered.wasm";
import { createEngineProvider } from "./image/provider";

/**
 * The isolate's one instance: every hook kind's calls run in it, each from
 * its code's memory image. Calls that await host capabilities park their
 * state while they wait (image/residency.ts), so they never hold it.
 */
export const workerdEngines = createEngineProvider(() => wasmModule);
