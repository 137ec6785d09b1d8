// How a failed request hook answers on the LLM routes: a turn error, not a
// provider failure. The body keeps the provider's error shape (`error.type`,
// `error.code`, `error.message`, which both official SDKs read), at a 4xx
// status the SDKs do not retry, with `x-should-retry: false` for those that
// would; a resend would only run the same hook again.
import type { Problem } from "../http/problem";
import type { HookFailure } from "./request-hook";

export const TURN_ERROR = "turn_error";

export function turnErrorProblem(failure: HookFailure): Problem {
  const error = { type: TURN_ERROR, code: failure.code, message: failure.message };
  const headers = { "x-should-retry": "false" };
  if (failure.approval !== undefined) {
    return {
      code: "approval_required",
      detail: failure.message,
      extensions: { hookCode: failure.code, approval: failure.approval, error },
      headers,
    };
  }
  return {
    code: "request_hook_failed",
    detail: failure.message,
    extensions: {
      hookCode: failure.code,
      ...(failure.refusal === undefined ? {} : { approvalCode: failure.refusal.code }),
      error,
    },
    headers,
  };
}
