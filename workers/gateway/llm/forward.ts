// Step 6: the provider, sent the request in its own dialect with the key the
// config names. Its answer (JSON or SSE) goes back to the client as it came,
// named by the request id; only a provider that could not be reached is
// answered by the gateway.
import type { ProviderName } from "../../../shared/config/providers";
import type { LlmCallState } from "../../../shared/llm/call-view";
import { forwardToProvider } from "../../../shared/llm/forward";
import { REQUEST_ID_HEADER } from "../wire/headers";
import { providerBody, type NeutralBody } from "./body";
import { workspaceOf, type LlmContext } from "./context";
import { llmProblem } from "./problem";

export async function forward(
  c: LlmContext,
  provider: ProviderName,
  body: NeutralBody,
  state: LlmCallState,
): Promise<Response> {
  const requestId = c.get("requestId");
  // A client gone by now is not forwarded either: its signal aborts the fetch before it starts.
  const forwarded = await forwardToProvider(
    c.env,
    workspaceOf(c),
    state.config,
    provider,
    providerBody(provider, body.request, body.stream),
    c.req.raw.headers,
    c.req.raw.signal,
    state.catalogVersion,
  );
  if (forwarded.kind === "not_configured") {
    return llmProblem("provider_not_configured", forwarded.message, requestId);
  }
  if (forwarded.kind === "unreachable") {
    return llmProblem("provider_unreachable", forwarded.message, requestId);
  }
  if (forwarded.kind === "timeout") return llmProblem("provider_timeout", forwarded.message, requestId);
  forwarded.response.headers.set(REQUEST_ID_HEADER, requestId);
  return forwarded.response;
}
