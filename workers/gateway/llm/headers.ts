// Step 2a: what the client says beside the body. Checked before the body is
// parsed, so a malformed header costs no parse.
import { MAIN_LOOP } from "../../../shared/config/pre-llm-hook";
import { APPROVAL_HEADER, APPROVAL_ID, APPROVAL_ID_REFUSAL } from "../../../shared/llm/host-approvals";
import { COMPACTION_HEADER, LOOP_HEADER } from "../wire/headers";
import { loopRefusal } from "../wire/origin";
import type { LlmContext, Step } from "./context";
import { answerProblem, llmProblem } from "./problem";

export interface ClientHeaders {
  /** The agent loop making the call: what `pre_llm_hook` targets. */
  loop: string;
  /** The approval a repeated call carries for its hook's host call. */
  approvalId: string | null;
  /** A history-compaction call: no request hook runs. */
  bypass: boolean;
}

export function clientHeaders(c: LlmContext): Step<ClientHeaders> {
  const requestId = c.get("requestId");
  const loop = c.req.header(LOOP_HEADER) ?? MAIN_LOOP;
  const badLoop = loopRefusal(loop);
  if (badLoop !== null) return answerProblem(badLoop, requestId);
  const approvalId = c.req.header(APPROVAL_HEADER) ?? null;
  if (approvalId !== null && !APPROVAL_ID.test(approvalId)) {
    return llmProblem("invalid_request", APPROVAL_ID_REFUSAL, requestId);
  }
  const compaction = c.req.header(COMPACTION_HEADER);
  if (compaction !== undefined && compaction !== "true" && compaction !== "false") {
    return llmProblem("invalid_request", `${COMPACTION_HEADER} must be true or false.`, requestId);
  }
  return { loop, approvalId, bypass: compaction === "true" };
}
