// What the sandbox of a request hook, a plugin or a nested lambda is built
// with beyond the common prelude. Kept apart from the host calls themselves
// (host-calls.ts), which reach the provider and storage: these are plain
// sandbox JS, so Node tools (the benches) can build the same sandboxes.
import {
  definePreludeConstants,
  REQUEST_HOOK_JSON_RETURN_JS,
  REQUEST_HOOK_NAMESPACE_JS,
  type PreludeExtension,
} from "../sandbox/prelude";

/** The global through which a request hook or plugin reaches its host calls. */
export const NAMESPACE = "rayrun";

/**
 * A second global with the same two capabilities under the names published
 * examples use: `adf.sys_lambda` is `rayrun.lambda`, `adf.model_invoke` is
 * `rayrun.model` (the same functions, so every gate applies alike).
 */
export const ALIAS_NAMESPACE = "adf";

/**
 * Return values follow JSON.stringify for object members whose value is
 * `undefined`: they are absent, so the documented contract example
 * `{ system: request.system, … }` works for a request without `system`;
 * everything else that is not JSON is still refused. Its sandbox JS:
 * shared/sandbox/prelude/request-hook-json-return.js.
 */
export const JSON_RETURN_EXTENSION: PreludeExtension = {
  name: "json-return-undefined-members",
  source: REQUEST_HOOK_JSON_RETURN_JS,
};

// The `rayrun` and `adf` globals; their sandbox JS (shared/sandbox/prelude/request-hook-namespace.js) reads their names as constants.
const NAMESPACE_JS = definePreludeConstants({ NAMESPACE, ALIAS_NAMESPACE }, REQUEST_HOOK_NAMESPACE_JS);

export const NAMESPACE_EXTENSION: PreludeExtension = { name: "request-hook-namespace", source: NAMESPACE_JS };

/** What a request hook's sandbox is built with: the `rayrun` namespace (and its `adf` alias) and lenient undefined members. */
export const REQUEST_HOOK_EXTENSIONS: readonly PreludeExtension[] = [
  JSON_RETURN_EXTENSION,
  NAMESPACE_EXTENSION,
];
/** A nested lambda: plain JSON in and out, no capabilities. */
export const NESTED_LAMBDA_EXTENSIONS: readonly PreludeExtension[] = [JSON_RETURN_EXTENSION];
