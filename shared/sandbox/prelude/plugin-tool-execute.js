// @ts-check
// Prelude extension for running one plugin tool's `execute` at call time
// (shared/plugins/tool-sandbox.ts): `tool({})` is called once in this sandbox
// and the definition whose id matches the request runs with the request's
// arguments and a frozen context.
const toolExecuteBaseInvoke = api.invoke;
let request;
const runExecute = (list) => {
  if (!isArray(list)) throw new TypeErr("the plugin's tool() did not return a list of tools");
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObjectLike(item) || dataProperty(item, "id") !== request.id) continue;
    const execute = dataProperty(item, "execute");
    if (typeof execute !== "function")
      throw new TypeErr("the tool " + request.id + " has no execute function");
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
  const returned = apply(toolExecuteBaseInvoke, undefined, args);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [runExecute]);
};
