// Step 5: the plugins' `chat.params`, which may set the request's parameters
// and fail open: a plugin that fails leaves the request as it was.
import type { ProviderName } from "../../../shared/config/providers";
import type { LlmCallState } from "../../../shared/llm/call-view";
import type { NeutralRequest } from "../../../shared/llm/request";
import { deferRuns } from "../../../shared/logs/writer";
import { runChatParams } from "../../../shared/plugins/chat-params";
import { workspaceOf, type LlmContext } from "./context";
import type { Hooked } from "./request-hook";

export async function chatParams(
  c: LlmContext,
  provider: ProviderName,
  hooked: Hooked,
  state: LlmCallState,
): Promise<NeutralRequest> {
  const chat = await runChatParams(c.env, {
    workspaceUid: workspaceOf(c),
    requestId: c.get("requestId"),
    request: hooked.request,
    plugins: hooked.plugins,
    provider,
    config: state.config,
  });
  deferRuns(c.executionCtx, c.env, chat.records, {
    payloadCapture: true,
    detailPolicy: state.config.detailPolicy,
  });
  return chat.request;
}
