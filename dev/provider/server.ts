// A fake LLM provider speaking OpenAI Chat Completions and Anthropic Messages,
// used in tests (Node side, through miniflare's outbound service) and in
// `npm start` (as a dev-only Worker). It answers `echo: <last user text>`, so a
// test can see what reached the provider both in the answer and in `_received`.
// Each `/<id>/…` prefix is an independent provider, so test files running in
// parallel never see each other's traffic. Web-standard APIs only: it runs in
// Node and in workerd.

export interface ReceivedRequest {
  method: string;
  /** The path after the `/<id>` prefix, e.g. `/v1/messages`. */
  path: string;
  headers: { authorization: string | null; "x-api-key": string | null; "anthropic-version": string | null };
  /** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
}

interface Failure {
  status: number;
  /** Sent as JSON, or as text when a string; absent: the provider's own error shape. */
  body?: unknown;
  /** How many calls in a row fail (default 1), e.g. to exhaust an SDK's retries. */
  times?: number;
}

/** A slow answer for the next call: late headers, or a stream that stops after some events. */
interface Slowness {
  /** Wait this long before answering at all. */
  headersAfterMs?: number;
  /** Streams only: send this many events, then stall for `stallMs` before the rest. */
  stallAfterEvents?: number;
  stallMs?: number;
}

interface ProviderState {
  received: ReceivedRequest[];
  failure: Failure | null;
  slow: Slowness | null;
}

type Dialect = "openai" | "anthropic";
const ROUTES = new Map<string, Dialect>([
  ["/v1/chat/completions", "openai"],
  ["/v1/messages", "anthropic"],
]);

/** A set of independent fake providers addressed by the first path segment. */
export function createProvider() {
  const states = new Map<string, ProviderState>();
  const stateOf = (id: string) => {
    let state = states.get(id);
    if (!state) {
      state = { received: [], failure: null, slow: null };
      states.set(id, state);
    }
    return state;
  };

  return async function handle(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const [, id = ""] = pathname.split("/");
    const path = pathname.slice(id.length + 1);
    const state = stateOf(id);
    if (path === "/_received") return Response.json(state.received);
    if (path === "/_fail" && request.method === "POST") {
      state.failure = await readJson<Failure>(request);
      return Response.json(state.failure);
    }
    if (path === "/_slow" && request.method === "POST") {
      state.slow = await readJson<Slowness>(request);
      return Response.json(state.slow);
    }

    const text = await request.text();
    const body = parseJson(text);
    state.received.push({ method: request.method, path, headers: headersOf(request), body });
    const dialect = request.method === "POST" ? ROUTES.get(path) : undefined;
    if (!dialect) return new Response("not found", { status: 404 });
    const slow = state.slow ?? {};
    state.slow = null;
    if (slow.headersAfterMs !== undefined) await sleep(slow.headersAfterMs);
    if (state.failure) return fail(state, state.failure, dialect);
    if (!isChatRequest(body)) return errorResponse(dialect, 400, "body needs `model` and a `messages` array");
    const reply = echoReply(dialect, body);
    const headers = requestIdHeader(dialect, reply.id);
    if (body.stream === true)
      return sse(dialect === "openai" ? openaiChunks(reply, body) : anthropicEvents(reply), headers, slow);
    return Response.json(dialect === "openai" ? openaiCompletion(reply) : anthropicMessage(reply), {
      headers,
    });
  };
}

function headersOf(request: Request): ReceivedRequest["headers"] {
  return {
    authorization: request.headers.get("authorization"),
    "x-api-key": request.headers.get("x-api-key"),
    "anthropic-version": request.headers.get("anthropic-version"),
  };
}

function fail(state: ProviderState, failure: Failure, dialect: Dialect): Response {
  const left = (failure.times ?? 1) - 1;
  state.failure = left > 0 ? { ...failure, times: left } : null;
  if (failure.body === undefined) return errorResponse(dialect, failure.status, "injected failure");
  if (typeof failure.body === "string") return new Response(failure.body, { status: failure.status });
  return Response.json(failure.body, { status: failure.status });
}

function errorResponse(dialect: Dialect, status: number, message: string): Response {
  const type = status === 400 ? "invalid_request_error" : status === 429 ? "rate_limit_error" : "api_error";
  const body =
    dialect === "openai"
      ? { error: { message, type, param: null, code: null } }
      : { type: "error", error: { type, message } };
  return Response.json(body, { status });
}

// ── Requests ────────────────────────────────────────────────────────────────

interface ChatRequest {
  model: string;
  messages: { role?: unknown; content?: unknown }[];
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

function isChatRequest(body: unknown): body is ChatRequest {
  if (typeof body !== "object" || body === null) return false;
  const { model, messages } = body as Record<string, unknown>;
  return (
    typeof model === "string" &&
    Array.isArray(messages) &&
    messages.every((m) => typeof m === "object" && m !== null)
  );
}

/** Text of a message's content: a string, or the text parts of an array (both dialects). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: unknown) => {
      if (typeof part !== "object" || part === null) return [];
      const { type, text } = part as { type?: unknown; text?: unknown };
      return type === "text" && typeof text === "string" ? [text] : [];
    })
    .join("");
}

/** A rough, deterministic token count, so usage is plausible and testable. */
const tokens = (text: string) => text.split(/\s+/).filter(Boolean).length;

interface Reply {
  id: string;
  model: string;
  text: string;
  inputTokens: number;
  outputTokens: number;
}

function echoReply(dialect: Dialect, body: ChatRequest): Reply {
  const lastUser = body.messages.findLast((m) => m.role === "user");
  const text = `echo: ${textOf(lastUser?.content)}`;
  const hex = crypto.randomUUID().replaceAll("-", "");
  return {
    id: dialect === "openai" ? `chatcmpl-${hex}` : `msg_${hex}`,
    model: body.model,
    text,
    inputTokens: body.messages.reduce((n, m) => n + tokens(textOf(m.content)), 0),
    outputTokens: tokens(text),
  };
}

function requestIdHeader(dialect: Dialect, id: string): Record<string, string> {
  return { [dialect === "openai" ? "x-request-id" : "request-id"]: `req_${id}` };
}

// ── OpenAI Chat Completions ─────────────────────────────────────────────────

const created = () => Math.floor(Date.now() / 1000);

function openaiUsage(reply: Reply) {
  return {
    prompt_tokens: reply.inputTokens,
    completion_tokens: reply.outputTokens,
    total_tokens: reply.inputTokens + reply.outputTokens,
  };
}

function openaiCompletion(reply: Reply) {
  return {
    id: reply.id,
    object: "chat.completion",
    created: created(),
    model: reply.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: reply.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: openaiUsage(reply),
    system_fingerprint: null,
  };
}

const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
  index: 0,
  delta,
  logprobs: null,
  finish_reason: finish,
});

function openaiChunks(reply: Reply, body: ChatRequest): string[] {
  const at = created();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    data({
      id: reply.id,
      object: "chat.completion.chunk",
      created: at,
      model: reply.model,
      choices,
      ...extra,
    });
  const wantsUsage = body.stream_options?.include_usage === true;
  // As the real API: when usage is asked for, every chunk carries `usage: null` until the last one.
  const usageNull = wantsUsage ? { usage: null } : {};
  return [
    chunk([choice({ role: "assistant", content: "", refusal: null })], usageNull),
    ...pieces(reply.text).map((content) => chunk([choice({ content })], usageNull)),
    chunk([choice({}, "stop")], usageNull),
    ...(wantsUsage ? [chunk([], { usage: openaiUsage(reply) })] : []),
    "data: [DONE]\n\n",
  ];
}

// ── Anthropic Messages ──────────────────────────────────────────────────────

function anthropicMessage(reply: Reply) {
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: [{ type: "text", text: reply.text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: reply.inputTokens,
      output_tokens: reply.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

const event = (type: string, payload: Record<string, unknown>) =>
  `event: ${type}\n${data({ type, ...payload })}`;

function anthropicEvents(reply: Reply): string[] {
  const start = anthropicMessage(reply);
  return [
    event("message_start", {
      message: { ...start, content: [], stop_reason: null, usage: { ...start.usage, output_tokens: 1 } },
    }),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    event("ping", {}),
    ...pieces(reply.text).map((text) =>
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
    ),
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: reply.outputTokens },
    }),
    event("message_stop", {}),
  ];
}

// ── Streaming ───────────────────────────────────────────────────────────────

const data = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/** The text in word-sized pieces, so a stream has several deltas to join. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [""];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sse(events: string[], headers: Record<string, string>, slow: Slowness = {}): Response {
  const encoder = new TextEncoder();
  // One chunk per event, so clients see a real stream rather than one body.
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === slow.stallAfterEvents) await sleep(slow.stallMs ?? 0);
      const frame = events[sent++];
      if (frame === undefined) controller.close();
      else controller.enqueue(encoder.encode(frame));
    },
  });
  return new Response(stream, {
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

// ── Bodies ──────────────────────────────────────────────────────────────────

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A body's JSON. This file is typed both as Worker and as Node code, whose `json()` signatures differ. */
async function readJson<T>(body: Request | Response): Promise<T> {
  const parsed: unknown = await body.json();
  return parsed as T;
}
