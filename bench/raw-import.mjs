// Node loader hook for the benches that load the sandbox in Node (tsx):
// `import text from "./part.js?raw"` is the file's text, as Vite and the
// Workers' wrangler rule make it (see shared/sandbox/prelude/index.ts). Pass it
// before the script: `tsx --import ./bench/raw-import.mjs bench/sandbox.ts`.
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";

if (typeof registerHooks !== "function") throw new Error("bench/raw-import.mjs needs Node >= 22.15");

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith("file:") || !url.endsWith("?raw")) return nextLoad(url, context);
    const text = readFileSync(new URL(url.slice(0, -"?raw".length)), "utf8");
    return { format: "module", source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  },
});
