// `POST /llm/{ws}/openai/v1/chat/completions` and `POST /llm/{ws}/anthropic/v1/messages`:
// provider-compatible endpoints. An official SDK whose base URL is `…/llm/{ws}/openai/v1`
// or `…/llm/{ws}/anthropic` and whose apiKey is a Rayrun key sends its usual body; the
// request hook rewrites that body, failing closed, and the provider's answer (JSON or SSE)
// comes back as is. A request, in its order:
//   1) the middlewares: a request id, admission (a key with `tools:call`, not revoked on
//      the isolate's lease), then the body's bound; all before the body is read, so
//      strangers cannot make us buffer one;
//   2) the client's headers (loop, approval id, compaction), then the body, mapped from
//      the provider's dialect to the neutral request (headers.ts, body.ts);
//   3) the call's state on the lease and the key's rate (state.ts);
//   4) the request hook beside the plugin list (request-hook.ts);
//   5) the plugins' `chat.params` (chat-params.ts);
//   6) the provider (forward.ts).
// A step that answers ends the request: the later steps do not run.
import { Hono } from "hono";
import type { ProviderName } from "../../../shared/config/providers";
import { requireAdmission } from "../middleware/auth";
import { limitBody } from "../middleware/body-limit";
import { requestId } from "../middleware/request-id";
import { neutralBody } from "./body";
import { chatParams } from "./chat-params";
import type { LlmContext, LlmEnv } from "./context";
import { forward } from "./forward";
import { clientHeaders } from "./headers";
import { answerProblem, llmProblem } from "./problem";
import { requestHook } from "./request-hook";
import { callState } from "./state";

async function proxy(c: LlmContext, provider: ProviderName): Promise<Response> {
  const headers = clientHeaders(c);
  if (headers instanceof Response) return headers;
  const body = await neutralBody(c, provider);
  if (body instanceof Response) return body;
  const state = await callState(c, headers);
  if (state instanceof Response) return state;
  const hooked = await requestHook(c, headers, body.request, state);
  if (hooked instanceof Response) return hooked;
  const request = await chatParams(c, provider, hooked, state);
  return forward(c, provider, { request, stream: body.stream }, state);
}

/** Step 1's middlewares, in order, answering refusals in the provider's error shape. */
const middlewares = (provider: ProviderName) =>
  [
    requestId,
    requireAdmission<LlmEnv>(
      (c, problem) => answerProblem(problem, c.get("requestId")),
      (c) => {
        // Anthropic clients pass their apiKey as `x-api-key` (newer SDKs as a bearer token).
        const apiKey = provider === "anthropic" ? c.req.header("x-api-key") : undefined;
        return c.req.header("authorization") ?? (apiKey ? `Bearer ${apiKey}` : undefined);
      },
    ),
    limitBody<LlmEnv>((c, tooLarge) =>
      llmProblem(tooLarge.code, tooLarge.detail, c.get("requestId"), tooLarge.extensions),
    ),
  ] as const;

export const llmRoutes = new Hono<LlmEnv>()
  .post("/llm/:ws/openai/v1/chat/completions", ...middlewares("openai"), (c) => proxy(c, "openai"))
  .post("/llm/:ws/anthropic/v1/messages", ...middlewares("anthropic"), (c) => proxy(c, "anthropic"));
