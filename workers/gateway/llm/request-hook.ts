// Step 4: the workspace's request hook, which may rewrite the request and
// fails closed, run beside the read of the plugin list the next step needs.
// The client's disconnect aborts the hook, and nothing is forwarded after it.
import type { LlmCallState } from "../../../shared/llm/call-view";
import type { NeutralRequest } from "../../../shared/llm/request";
import { runRequestHook } from "../../../shared/llm/request-hook";
import { requestHookRecords } from "../../../shared/llm/request-hook-records";
import { turnErrorProblem } from "../../../shared/llm/turn-error";
import { deferRuns } from "../../../shared/logs/writer";
import type { DeployedPlugin } from "../../../shared/plugins/discovery";
import { workspaceOf, type LlmContext, type Step } from "./context";
import type { ClientHeaders } from "./headers";
import { answerProblem } from "./problem";

/** The request the hook left, and the plugins that see it next. */
export interface Hooked {
  request: NeutralRequest;
  plugins: DeployedPlugin[];
}

export async function requestHook(
  c: LlmContext,
  headers: ClientHeaders,
  request: NeutralRequest,
  state: LlmCallState,
): Promise<Step<Hooked>> {
  const ws = workspaceOf(c);
  const requestId = c.get("requestId");
  const { caller } = c.get("admitted");
  const { loop, approvalId, bypass } = headers;
  const [outcome, plugins] = await Promise.all([
    runRequestHook(
      c.env,
      {
        workspaceUid: ws,
        loop,
        request,
        requestId,
        bypass,
        config: Promise.resolve(state.config),
        signal: c.req.raw.signal,
        ...(state.hookPointers === null ? {} : { pointers: state.hookPointers }),
        caller: { keyId: caller.keyId, actor: caller.actor, approvalId },
      },
      { env: c.env, workspaceUid: ws, requestId },
    ),
    state.plugins(),
  ]);
  if (outcome.kind !== "skipped") {
    deferRuns(c.executionCtx, c.env, requestHookRecords(ws, loop, requestId, outcome), {
      payloadCapture: true,
      detailPolicy: state.config.detailPolicy,
    });
  }
  if (outcome.kind === "failed") return answerProblem(turnErrorProblem(outcome), requestId);
  return { request: outcome.kind === "transformed" ? outcome.request : request, plugins };
}
