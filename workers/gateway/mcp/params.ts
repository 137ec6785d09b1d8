// `tools/call` params checked before the SDK sees them. The SDK parses every
// request against its schema and answers a mismatch with -32603 (internal
// error) and the schema's issue list dumped as JSON; a client deserves -32602
// (invalid params) and one line naming the field. A call with bad params is
// rewritten to carry that line in its `_meta`, where the tool handler finds it
// and answers the error: one path for single messages and batches, JSON and
// SSE answers alike.
import { isJsonObject } from "../../../shared/json";

export const INVALID_PARAMS_META_KEY = "rayrun/invalidParams";

/** What is wrong with a `tools/call`'s params, in one line, or null. */
export function toolCallParamsProblem(params: unknown): string | null {
  if (params === undefined) return "tools/call needs params: { name, arguments }.";
  if (!isJsonObject(params)) return "params must be an object: { name, arguments }.";
  if (typeof params.name !== "string") return "params.name must be a string naming the tool.";
  if (params.arguments !== undefined && !isJsonObject(params.arguments)) {
    return "params.arguments must be an object.";
  }
  if (params._meta !== undefined && !isJsonObject(params._meta)) return "params._meta must be an object.";
  return null;
}

function checked(message: unknown): unknown {
  if (!isJsonObject(message) || message.method !== "tools/call" || message.id === undefined) return message;
  const problem = toolCallParamsProblem(message.params);
  if (problem === null) return message;
  return { ...message, params: { name: "", _meta: { [INVALID_PARAMS_META_KEY]: problem } } };
}

/** The message (or batch) with every `tools/call` whose params are invalid marked with its problem. */
export const withToolCallParamsChecked = (message: unknown): unknown =>
  Array.isArray(message) ? message.map(checked) : checked(message);
