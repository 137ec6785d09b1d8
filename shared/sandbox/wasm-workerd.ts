// The QuickJS wasm as a pre-compiled module: Workers cannot compile
// WebAssembly from bytes at run time (wrangler's CompiledWasm rule imports it).
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { createEngineProvider } from "./engine";

/** The instance for code that runs to completion: tool adapters (and their warm pool), file test runs. */
export const workerdEngines = createEngineProvider(() => wasmModule);

/**
 * A second instance, with its own capped memory, for code that awaits host
 * capabilities (request hooks and their nested lambdas): while such code is
 * suspended it holds memory, so it never shares an instance with the
 * adapters on the tool-call path (DESIGN §7 "Shared memory across calls").
 * Created on first use.
 */
export const asyncEngines = createEngineProvider(() => wasmModule);
