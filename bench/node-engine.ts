// Loads the QuickJS wasm from node_modules for Node-side tools (the bench):
// Workers import it pre-compiled instead (shared/sandbox/wasm-workerd.ts).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createEngineProvider } from "../shared/sandbox/engine";

const require = createRequire(import.meta.url);

export const nodeEngines = createEngineProvider(() =>
  WebAssembly.compile(readFileSync(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))),
);
