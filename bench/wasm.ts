// The QuickJS wasm for Node-side tools: the metered build the Workers import
// (written by scripts/meter-wasm.mjs when missing or stale) and the package's
// own build, for comparisons.
import { wasmBytes } from "../scripts/meter-wasm.mjs";

/** The metered build, as the Workers run it. */
export const meteredWasm = (): Promise<WebAssembly.Module> => WebAssembly.compile(wasmBytes("metered"));

/** The package's build, without the loop meter. */
export const plainWasm = (): Promise<WebAssembly.Module> => WebAssembly.compile(wasmBytes("package"));
