// @ts-check
// Prelude extension for reading a plugin's tools at deploy time
// (shared/plugins/tool-sandbox.ts): maps what `tool({})` returned to JSON
// records `{ id, description, parameters, executable }`, or null when it is
// not a list. PLUGIN_TOOL_PARAMETERS_CHARS is defined ahead of this text by the host.
const toolDefsBaseInvoke = api.invoke;
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
      record.parameters = toJsonText(
        dataProperty(item, "parameters"),
        "parameters",
        PLUGIN_TOOL_PARAMETERS_CHARS,
      );
      record.executable = typeof dataProperty(item, "execute") === "function";
    }
    defineProp(out, out.length, descriptor(record, true, true, true));
  }
  return out;
};
builders.json = () => [objCreate(ObjectProto)];
// Every argument goes through (the call's first fuel lease among them).
api.invoke = (...args) => {
  const returned = apply(toolDefsBaseInvoke, undefined, args);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [readDefs]);
};
