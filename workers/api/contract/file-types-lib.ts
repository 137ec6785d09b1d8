// The editor declarations only lib files get: a request hook's input and
// return (shared/llm/request-hook.ts calls the function with
// `{ request, loop: { name } }` and validates what it returns as a complete
// neutral request), and the functions other hooks reach through `rayrun.lambda`.
import { LOOP_NAME_PATTERN, MAIN_LOOP } from "../../../shared/config/pre-llm-hook";
import { DEFAULT_LIB_EXPORT } from "../../../shared/files/exports";
import { LIMITS } from "../../../shared/limits";
import { NAMESPACE } from "./file-types-common";

const ns = NAMESPACE;
const SOURCE = `lib/<path>:<function>`;

/** The declarations a `lib/…` file gets besides the common ones. */
export const LIB_TYPES = `/** The agent loop making the call. */
type RayrunLoop = {
  /** \`"${MAIN_LOOP}"\`, or the inner loop's name (the client's \`x-rayrun-loop\`; \`${LOOP_NAME_PATTERN.source}\`). */
  name: string;
};

/** The single argument of a request hook. */
type RayrunRequestHookInput = {
  /** The request about to be sent: a valid neutral request. */
  request: RayrunRequest;
  /** Which loop makes the call. */
  loop: RayrunLoop;
};

/**
 * A request hook (the workspace config's \`pre_llm_hook.source\`, \`${SOURCE}\`; no \`:<function>\` means \`${DEFAULT_LIB_EXPORT}\`):
 * runs right before each conversational provider request of the loops it targets and returns the complete request
 * to send instead. Write it as \`export function transform({ request, loop }: RayrunRequestHookInput): RayrunRequest\`,
 * or \`export const transform: RayrunRequestHook = …\`.
 *
 * It fails closed (the call answers 422 \`request_hook_failed\`; the original request is never sent) when it throws,
 * awaits a rejected \`${ns}.*\` call without catching it, runs past its time (\`timeout_ms\`, default
 * ${LIMITS.requestHookTimeoutMs} ms: CPU as fuel, awaited calls on the wall clock), or returns something that is not
 * a valid complete request: the request itself (not \`{ request, loop }\`), as JSON (an \`undefined\` member counts as
 * absent), at most ${LIMITS.outputBytes / 1024} KiB, with no other top-level members.
 * Each call runs in a fresh sandbox: module state never carries over to the next call.
 */
type RayrunRequestHook = (input: RayrunRequestHookInput) => RayrunMaybePromise<RayrunRequest>;

/**
 * A lib function another hook runs with \`${ns}.lambda({ source: "${SOURCE}", args })\`: it receives \`args\`
 * (\`null\` when left out) and returns JSON. It runs in a fresh sandbox without capabilities: no \`${ns}\` global.
 */
type RayrunLambda<Args = RayrunJson, Returns = RayrunJson> = (args: Args) => RayrunMaybePromise<Returns>;`;
