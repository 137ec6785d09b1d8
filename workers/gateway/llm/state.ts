// Step 3: the call's state, decided on the isolate's lease (no trip home while
// it holds): the config at the lease's catalog version serves the hook, the
// plugins and forwarding; the lease gives the hook's pointers and, again,
// revocation (a hook may call a model). Then the key's rate, counted with the
// rate that config names, before any hook or provider work.
import { LeaseUnavailable } from "../../../shared/lease/view";
import { llmCallState, type LlmCallState } from "../../../shared/llm/call-view";
import { REVOKED, UNAVAILABLE } from "../middleware/auth";
import { RATE_WINDOW_SECONDS, rateLimitedDetail, withinRate } from "../middleware/rate-limit";
import { workspaceOf, type LlmContext, type Step } from "./context";
import type { ClientHeaders } from "./headers";
import { answerProblem, llmProblem } from "./problem";

export async function callState(c: LlmContext, headers: ClientHeaders): Promise<Step<LlmCallState>> {
  const ws = workspaceOf(c);
  const requestId = c.get("requestId");
  const { caller, platform } = c.get("admitted");
  let state;
  try {
    state = await llmCallState(c.env, ws, {
      loop: headers.loop,
      keyId: platform ? null : caller.keyId,
      bypass: headers.bypass,
    });
  } catch (error) {
    if (error instanceof LeaseUnavailable) return answerProblem(UNAVAILABLE, requestId);
    throw error;
  }
  if (state.revoked) return answerProblem(REVOKED, requestId);
  const perMinute = state.config.rateLimits.llmPerMinute;
  if (!(await withinRate(c.env, "llm", perMinute, ws, caller.keyId))) {
    return llmProblem(
      "rate_limited",
      rateLimitedDetail(perMinute),
      requestId,
      { limit: perMinute },
      { "retry-after": String(RATE_WINDOW_SECONDS) },
    );
  }
  return state;
}
