// The `tool` hook in the sandbox: definitions are read at
// deploy time (tool-definitions.ts) and `execute` runs at call time
// (tool-execute.ts). `execute` is a function and cannot cross the boundary, so
// both extensions wrap the call of `default.tool({})`:
//   - pluginToolDefs maps what `tool()` returned to JSON records
//     `{ id, description, parameters }` (null when it is not an array);
//   - pluginToolExecute takes `execute` of the definition matched by id from
//     that sandbox's own single call of `tool()` and runs it with the args.
// Both override the `json` builder (runModuleExport's): the input is kept
// by the extension and `tool` is called with `{}`.
import type { PreludeExtension } from "../sandbox";
import { definePreludeConstants, PLUGIN_TOOL_DEFS_JS, PLUGIN_TOOL_EXECUTE_JS } from "../sandbox/prelude";

/** Largest JSON of one tool's parameters read from the sandbox, in characters. */
export const PLUGIN_TOOL_PARAMETERS_CHARS = 64 * 1024;

export const pluginToolDefsExtension: PreludeExtension = {
  name: "pluginToolDefs",
  source: definePreludeConstants({ PLUGIN_TOOL_PARAMETERS_CHARS }, PLUGIN_TOOL_DEFS_JS),
};
export const pluginToolExecuteExtension: PreludeExtension = {
  name: "pluginToolExecute",
  source: PLUGIN_TOOL_EXECUTE_JS,
};
