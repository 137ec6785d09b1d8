// The QuickJS wasm for Node-side tools: the metered build the Workers import
// (written by scripts/meter-wasm.mjs, made here when missing or stale) and
// the package's own build, for comparisons.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { ensureMeteredWasm, METERED_WASM } from "../scripts/meter-wasm.mjs";

const require = createRequire(import.meta.url);
ensureMeteredWasm();

/** The metered build, as the Workers run it. */
export const meteredWasm = (): Promise<WebAssembly.Module> => WebAssembly.compile(readFileSync(METERED_WASM));

/** The package's build, without the loop meter. */
export const plainWasm = (): Promise<WebAssembly.Module> =>
  WebAssembly.compile(readFileSync(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm")));
