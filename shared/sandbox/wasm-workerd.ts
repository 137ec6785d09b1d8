// The QuickJS wasm as a pre-compiled module: Workers cannot compile
// WebAssembly from bytes at run time (wrangler's CompiledWasm rule imports it).
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { createEngineProvider } from "./engine";

export const workerdEngines = createEngineProvider(() => wasmModule);
