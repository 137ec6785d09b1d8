// `POST /llm/{ws}/openai/v1/chat/completions` and `POST /llm/{ws}/anthropic/v1/messages`:
// provider-compatible endpoints. An official
// SDK whose base URL is `…/llm/{ws}/openai/v1` or `…/llm/{ws}/anthropic` and
// whose apiKey is a Rayrun key sends its usual body; the request hook rewrites
// that body, failing closed, and the provider's answer (JSON or SSE) comes back as is.
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { LeaseUnavailable } from "../../shared/lease/view";
import { LOOP_NAME_PATTERN, MAIN_LOOP } from "../../shared/config/pre-llm-hook";
import type { ProviderName } from "../../shared/config/providers";
import { isJsonMediaType, SEND_JSON } from "../../shared/http/media-type";
import { problemResponse, TOO_DEEP, type Problem, type ProblemCode } from "../../shared/http/problem";
import { isJsonObject, nestsDeeperThan, type JsonObject } from "../../shared/json";
import { LIMITS } from "../../shared/limits";
import { anthropicToNeutral, neutralToAnthropic } from "../../shared/llm/anthropic";
import { forwardToProvider } from "../../shared/llm/forward";
import { neutralToOpenai, openaiToNeutral } from "../../shared/llm/openai";
import type { NeutralRequest, RequestProblem } from "../../shared/llm/request";
import { llmCallState } from "../../shared/llm/call-view";
import { runRequestHook } from "../../shared/llm/request-hook";
import { requestHookRecords } from "../../shared/llm/request-hook-records";
import { APPROVAL_HEADER, APPROVAL_ID, APPROVAL_ID_REFUSAL } from "../../shared/llm/host-approvals";
import { turnErrorProblem } from "../../shared/llm/turn-error";
import { runChatParams } from "../../shared/plugins/chat-params";
import { deferRuns } from "../../shared/logs/writer";
import type { Result } from "../../shared/result";
import { admit, REVOKED, UNAVAILABLE, type Admitted } from "./auth";
import { RATE_WINDOW_SECONDS, rateLimitedDetail, withinRate } from "./rate-limit";

/** Names the call in the answer and in the hook-run log, so a client can find its run. */
export const REQUEST_ID_HEADER = "x-rayrun-request-id";
/** The agent loop making the call ("main" or an inner loop's name): what `pre_llm_hook` targets. */
export const LOOP_HEADER = "x-rayrun-loop";
/** `true` on history-compaction calls, which never run the request hook. */
export const COMPACTION_HEADER = "x-rayrun-compaction";

interface Dialect {
  toNeutral: (body: JsonObject) => Result<{ request: NeutralRequest; stream: boolean }, RequestProblem[]>;
  fromNeutral: (request: NeutralRequest, stream: boolean) => JsonObject;
}

const DIALECTS: Record<ProviderName, Dialect> = {
  openai: { toNeutral: openaiToNeutral, fromNeutral: neutralToOpenai },
  anthropic: { toNeutral: anthropicToNeutral, fromNeutral: neutralToAnthropic },
};

/**
 * A problem document the official SDKs can also read: both take `error.message`
 * and `error.type` from an error body (OpenAI's also `error.code`), and without
 * them report only "422 status code". A turn error brings its own `error`.
 */
function llmProblem(
  code: ProblemCode,
  detail: string,
  requestId: string,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return problemResponse({
    code,
    detail,
    extensions: { error: { type: code, code, message: detail }, ...extensions, requestId },
    headers: { ...headers, [REQUEST_ID_HEADER]: requestId },
  });
}

const answerProblem = (problem: Problem, requestId: string): Response =>
  llmProblem(problem.code, problem.detail ?? "", requestId, problem.extensions, problem.headers);

type LlmEnv = {
  Bindings: Env;
  Variables: { admitted: Admitted; requestId: string };
};
type GatewayContext = Context<LlmEnv>;

/** Needs `tools:call`; runs before the body is read, so strangers cannot make us buffer one. */
const authenticated = (provider: ProviderName) =>
  createMiddleware<LlmEnv>(async (c, next) => {
    const requestId = crypto.randomUUID();
    // Anthropic clients pass their apiKey as `x-api-key` (newer SDKs as a bearer token).
    const apiKey = provider === "anthropic" ? c.req.header("x-api-key") : undefined;
    const authorization = c.req.header("authorization") ?? (apiKey ? `Bearer ${apiKey}` : undefined);
    const ws = c.req.param("ws") ?? "";
    const admission = await admit(c.env, authorization, ws, (p) => c.executionCtx.waitUntil(p));
    if (!admission.ok) return answerProblem(admission.problem, requestId);
    c.set("admitted", admission.admitted);
    c.set("requestId", requestId);
    return next();
  });

/** Bounds the body as it streams in; a larger one is refused in the provider's error shape. */
const limitBody = createMiddleware<LlmEnv>((c, next) =>
  bodyLimit({
    maxSize: LIMITS.requestBodyBytes,
    onError: () =>
      llmProblem(
        "payload_too_large",
        `Request bodies are limited to ${LIMITS.requestBodyBytes} bytes.`,
        c.get("requestId"),
        { limit: LIMITS.requestBodyBytes },
      ),
  })(c, next),
);

async function proxy(c: GatewayContext, provider: ProviderName): Promise<Response> {
  const ws = c.req.param("ws") ?? "";
  const requestId = c.get("requestId");
  const loop = c.req.header(LOOP_HEADER) ?? MAIN_LOOP;
  if (!LOOP_NAME_PATTERN.test(loop)) {
    return llmProblem(
      "invalid_request",
      `${LOOP_HEADER} must be a loop name: 1–64 letters, digits, _, . or -.`,
      requestId,
    );
  }
  const approvalId = c.req.header(APPROVAL_HEADER) ?? null;
  if (approvalId !== null && !APPROVAL_ID.test(approvalId)) {
    return llmProblem("invalid_request", APPROVAL_ID_REFUSAL, requestId);
  }
  const compaction = c.req.header(COMPACTION_HEADER);
  if (compaction !== undefined && compaction !== "true" && compaction !== "false") {
    return llmProblem("invalid_request", `${COMPACTION_HEADER} must be true or false.`, requestId);
  }
  if (!isJsonMediaType(c.req.header("content-type"))) {
    return llmProblem("unsupported_media_type", SEND_JSON, requestId);
  }
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return llmProblem("invalid_json", "The body is not valid JSON.", requestId);
  }
  if (!isJsonObject(body)) return llmProblem("invalid_request", "The body must be a JSON object.", requestId);
  if (nestsDeeperThan(body, LIMITS.jsonDepth)) {
    return llmProblem(TOO_DEEP.code, TOO_DEEP.detail, requestId, TOO_DEEP.extensions);
  }
  // Checked here, not left to the provider: a body without a model must not be sent anywhere.
  if (typeof body.model !== "string" || body.model === "") {
    const errors = [{ path: "/model", message: "must be a non-empty string naming the model" }];
    return llmProblem("invalid_request", "/model: must be a non-empty string naming the model", requestId, {
      errors,
    });
  }
  const dialect = DIALECTS[provider];
  const mapped = dialect.toNeutral(body);
  if (!mapped.ok) {
    const detail = mapped.error.map((p) => `${p.path || "/"}: ${p.message}`).join("; ");
    return llmProblem("invalid_request", detail, requestId, { errors: mapped.error });
  }

  // Decided on the isolate's lease (no trip home while it holds): the config at
  // the lease's catalog version serves the hook, the plugins and forwarding; the
  // lease gives the hook's pointers and, again, revocation (a hook may call a model).
  const { caller, platform } = c.get("admitted");
  let state;
  try {
    state = await llmCallState(c.env, ws, {
      loop,
      keyId: platform ? null : caller.keyId,
      bypass: compaction === "true",
    });
  } catch (error) {
    if (error instanceof LeaseUnavailable) return answerProblem(UNAVAILABLE, requestId);
    throw error;
  }
  if (state.revoked) return answerProblem(REVOKED, requestId);
  const { config } = state;
  // Counted with the rate the config read above names, before any hook or provider work.
  const perMinute = config.rateLimits.llmPerMinute;
  if (!(await withinRate(c.env, "llm", perMinute, ws, caller.keyId))) {
    return llmProblem(
      "rate_limited",
      rateLimitedDetail(perMinute),
      requestId,
      { limit: perMinute },
      {
        "retry-after": String(RATE_WINDOW_SECONDS),
      },
    );
  }
  // The client's disconnect aborts this signal: the hook stops and nothing is forwarded.
  const signal = c.req.raw.signal;
  const [outcome, plugins] = await Promise.all([
    runRequestHook(
      c.env,
      {
        workspaceUid: ws,
        loop,
        request: mapped.value.request,
        requestId,
        bypass: compaction === "true",
        config: Promise.resolve(config),
        signal,
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
      detailPolicy: config.detailPolicy,
    });
  }
  // A client gone after the hook is not forwarded either: its signal aborts the provider fetch before it starts.
  if (outcome.kind === "failed") return answerProblem(turnErrorProblem(outcome), requestId);

  // Plugins' chat.params (fail open), then the provider.
  const chat = await runChatParams(c.env, {
    workspaceUid: ws,
    requestId,
    request: outcome.kind === "transformed" ? outcome.request : mapped.value.request,
    plugins,
    provider,
    config,
  });
  deferRuns(c.executionCtx, c.env, chat.records, {
    payloadCapture: true,
    detailPolicy: config.detailPolicy,
  });
  const request = chat.request;
  const forwarded = await forwardToProvider(
    c.env,
    ws,
    config,
    provider,
    dialect.fromNeutral(request, mapped.value.stream),
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

export const llmRoutes = new Hono<LlmEnv>()
  .post("/llm/:ws/openai/v1/chat/completions", authenticated("openai"), limitBody, (c) => proxy(c, "openai"))
  .post("/llm/:ws/anthropic/v1/messages", authenticated("anthropic"), limitBody, (c) =>
    proxy(c, "anthropic"),
  );
