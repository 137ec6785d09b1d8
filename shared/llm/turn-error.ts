// How a failed request hook answers on the LLM routes: a turn error, not a
// provider failure. The body keeps the provider's error shape (`error.type`,
// `error.code`, `error.message`, which both official SDKs read), at a 4xx
// status the SDKs do not retry, with `x-should-retry: false` for those that
// would; a resend would only run the same hook again.
import type { Problem } from "../http/problem";
import type { HookFailure } from "./request-hook";

export const TURN_ERROR = "turn_error";
/** The approval a repeated request carries, for the host call of its request hook that needed one. */
export const APPROVAL_HEADER = "x-rayrun-approval-id";
/** What an approval id looks like (`apr_` and its time-ordered tail); anything else is refused before the hook runs. */
export const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{1,100}$/;
export const APPROVAL_ID_REFUSAL = `${APPROVAL_HEADER} must be an approval id (apr_…).`;

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
