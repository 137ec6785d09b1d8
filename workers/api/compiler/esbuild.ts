// esbuild-wasm is ~14 MB: importing it statically would make every module
// that touches the compiler pay for it. Only this module loads it, on first use.
import type * as Esbuild from "esbuild-wasm";

let ready: Promise<typeof Esbuild> | undefined;

/** The initialized esbuild API, shared by every compile in this isolate. */
export function loadEsbuild(): Promise<typeof Esbuild> {
  // initialize() may run once per isolate; a failed attempt is forgotten so
  // that a later compile can retry instead of failing forever.
  ready ??= (async () => {
    const esbuild = await import("esbuild-wasm");
    const { default: wasmModule } = await import("esbuild-wasm/esbuild.wasm");
    await esbuild.initialize({ wasmModule, worker: false });
    return esbuild;
  })().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}
