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

/** Largest JSON of one tool's parameters read from the sandbox, in characters. */
export const PLUGIN_TOOL_PARAMETERS_CHARS = 64 * 1024;

const TOOL_DEFS_JS = String.raw`
const pluginBaseInvoke = api.invoke;
const readDefs = (list) => {
  if (!isArray(list)) return null;
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const record = objCreate(null);
    if (!isObjectLike(item)) {
      record.problem = "is not an object";
    } else {
      const id = dataProperty(item, "id");
      const description = dataProperty(item, "description");
      record.id = typeof id === "string" ? id : null;
      record.description = typeof description === "string" ? description : null;
      record.parameters = toJsonText(dataProperty(item, "parameters"), "parameters", ${PLUGIN_TOOL_PARAMETERS_CHARS});
      record.executable = typeof dataProperty(item, "execute") === "function";
    }
    defineProp(out, out.length, descriptor(record, true, true, true));
  }
  return out;
};
builders.json = () => [objCreate(ObjectProto)];
// Every argument goes through (the call's first fuel lease among them).
api.invoke = (...args) => {
  const returned = apply(pluginBaseInvoke, undefined, args);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [readDefs]);
};
`;

const TOOL_EXECUTE_JS = String.raw`
const pluginBaseInvoke = api.invoke;
let request;
const runExecute = (list) => {
  if (!isArray(list)) throw new TypeErr("the plugin's tool() did not return a list of tools");
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObjectLike(item) || dataProperty(item, "id") !== request.id) continue;
    const execute = dataProperty(item, "execute");
    if (typeof execute !== "function") throw new TypeErr("the tool " + request.id + " has no execute function");
    const source = request.context;
    const context = objCreate(ObjectProto);
    const fields = ["toolID", "requestId", "workspaceUid", "calledAt"];
    for (let j = 0; j < fields.length; j++) {
      defineProp(context, fields[j], descriptor(source[fields[j]], true, false, false));
    }
    objFreeze(context);
    return apply(execute, item, [request.args, context]);
  }
  throw new TypeErr("the plugin's tool() no longer defines " + request.id);
};
builders.json = (input) => {
  request = input[0];
  return [objCreate(ObjectProto)];
};
api.invoke = (...args) => {
  const returned = apply(pluginBaseInvoke, undefined, args);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [runExecute]);
};
`;

export const pluginToolDefsExtension: PreludeExtension = { name: "pluginToolDefs", source: TOOL_DEFS_JS };
export const pluginToolExecuteExtension: PreludeExtension = {
  name: "pluginToolExecute",
  source: TOOL_EXECUTE_JS,
};
