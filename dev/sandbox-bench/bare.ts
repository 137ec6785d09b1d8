// The floor under a stage: the same hook code run in a bare QuickJS context
// of the package's own build, with nothing of the sandbox around it (no memory
// image, no fuel, no prelude, no checks of what goes in or comes out). Only
// what any sandbox built on this engine must do is left: the input handed in
// as JSON text and parsed in the engine, the hook called, its return value and
// its log lines serialised, and that text read back. What a stage costs above
// this is the sandbox's; this much is the engine's on the machine at hand.
// Used by bench:stages (in workerd, dev/sandbox-bench/worker.ts) and
// bench:sandbox's `cold` section (in Node).
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten-core";

// Runs in the bare context: a log that keeps each line as JSON text, as a
// sandbox must to hand it out, and a defineToolAdapter that keeps the definition.
const HARNESS = `globalThis.defineToolAdapter = (definition) => definition;
globalThis.__bareRun = (pathText, text) => {
  const exportPath = JSON.parse(pathText);
  const input = JSON.parse(text);
  const lines = [];
  const line = (level) => (message, data) => { lines.push(JSON.stringify([level, message, data])); };
  if (input !== null && typeof input.context === "object")
    input.context.log = { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
  let target = __rayrunModule;
  for (const key of exportPath) target = target[key];
  return JSON.stringify([target(input) ?? null, lines]);
};`;

/** A compiled hook module loaded into a bare context; `call` runs one export on JSON input. */
export interface BareHook {
  /** The export at `exportPath` called with `input`: its return value and log lines, as JSON text. */
  call(exportPath: readonly string[], inputText: string): string;
  dispose(): void;
}

export function bareHook(engine: QuickJSWASMModule, code: string): BareHook {
  const context: QuickJSContext = engine.newContext();
  context.unwrapResult(context.evalCode(`${HARNESS}\n${code}`, "hook.js")).dispose();
  const run: QuickJSHandle = context.getProp(context.global, "__bareRun");
  return {
    call(exportPath, inputText) {
      const path = context.newString(JSON.stringify(exportPath));
      const text = context.newString(inputText);
      try {
        const result = context.unwrapResult(context.callFunction(run, context.undefined, path, text));
        return result.consume((handle) => context.getString(handle));
      } finally {
        text.dispose();
        path.dispose();
      }
    },
    dispose() {
      run.dispose();
      context.dispose();
    },
  };
}
