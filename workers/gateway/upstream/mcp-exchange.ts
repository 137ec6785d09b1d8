// One JSON-RPC exchange with an upstream over MCP Streamable HTTP: POST a
// message, read the answer as JSON or from an SSE stream. Hand-written because
// the SDK's client transport only works inside a connected `Client`, and a
// connected client means a full initialize handshake per use — the hot path
// needs a single POST per call (see dispatch.ts for the session cache).
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject } from "../../../shared/json";
import { KNOBS } from "../../../shared/knobs";
import { PROTOCOL_HEADER, SESSION_HEADER } from "../wire/headers";
import { plainResultResponse } from "../wire/shapes";

export interface ExchangeTarget {
  url: string;
  bearerToken: string | null;
  sessionId: string | null;
  /** Sent once negotiated (never on `initialize`). */
  protocolVersion: string | null;
}

export type ExchangeAnswer =
  | { kind: "result"; result: Record<string, unknown>; sessionId: string | null }
  | { kind: "rpc_error"; code: number; message: string; data?: unknown }
  /** Notifications: the upstream accepted it (202). */
  | { kind: "accepted"; sessionId: string | null }
  /** An HTTP-level refusal (e.g. 404 for an expired session). */
  | { kind: "http_error"; status: number }
  | { kind: "unusable"; message: string };

export function headersFor(target: ExchangeTarget): Headers {
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  if (target.bearerToken) headers.set("authorization", `Bearer ${target.bearerToken}`);
  if (target.sessionId) headers.set(SESSION_HEADER, target.sessionId);
  if (target.protocolVersion) headers.set(PROTOCOL_HEADER, target.protocolVersion);
  return headers;
}

function answerOf(message: unknown, id: number): ExchangeAnswer | null {
  const plain = plainResultResponse(message, id);
  if (plain !== null) return { kind: "result", result: plain, sessionId: null };
  const result = JSONRPCResultResponseSchema.safeParse(message);
  if (result.success)
    return result.data.id === id ? { kind: "result", result: result.data.result, sessionId: null } : null;
  const error = JSONRPCErrorResponseSchema.safeParse(message);
  if (error.success && (error.data.id === id || error.data.id === undefined)) {
    const { code, message: text, data } = error.data.error;
    return { kind: "rpc_error", code, message: text, ...(data === undefined ? {} : { data }) };
  }
  return null;
}

/** Notifications an upstream sends during a call that the gateway acts on or passes to its client. */
export const RELAYED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/progress",
  "notifications/message",
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
]);

export type NotificationSink = (notification: {
  method: string;
  params?: Record<string, unknown>;
}) => Promise<void>;

/** A relayed notification in the stream, or null. */
export function relayedNotification(
  message: unknown,
): { method: string; params?: Record<string, unknown> } | null {
  if (!isJsonObject(message) || message.id !== undefined || typeof message.method !== "string") return null;
  if (!RELAYED_NOTIFICATIONS.has(message.method)) return null;
  const { params } = message;
  return isJsonObject(params) ? { method: message.method, params } : { method: message.method };
}

/** A request the upstream sends its client in the middle of an exchange (sampling, elicitation, roots). */
export interface UpstreamRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** Passes an upstream's request on to the client; false when it cannot (the gateway then refuses it). */
export type RequestSink = (request: UpstreamRequest) => Promise<boolean>;

export function upstreamRequest(message: unknown): UpstreamRequest | null {
  if (!isJsonObject(message) || typeof message.method !== "string") return null;
  const { id, params } = message;
  if (typeof id !== "string" && typeof id !== "number") return null;
  return { id, method: message.method, ...(isJsonObject(params) ? { params } : {}) };
}

/** Posts a JSON-RPC response to a request the upstream sent (its own id); the upstream's reply is not read. */
export async function answerUpstream(
  target: ExchangeTarget,
  response: { id: string | number; result: unknown } | { id: string | number; error: unknown },
  signal: AbortSignal,
): Promise<boolean> {
  const reply = await fetch(target.url, {
    method: "POST",
    headers: headersFor(target),
    body: JSON.stringify({ jsonrpc: "2.0", ...response }),
    signal,
  }).catch(() => null);
  await reply?.body?.cancel();
  return reply?.ok ?? false;
}

/**
 * Answers a request the client cannot take at once with JSON-RPC's "method not
 * found": an unanswered request would hold the call until its timeout.
 */
export async function refuseUpstreamRequest(
  target: ExchangeTarget,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<void> {
  const error = {
    code: ErrorCode.MethodNotFound,
    message: `The gateway's client did not declare the capability for ${request.method}.`,
  };
  await answerUpstream(target, { id: request.id, error }, signal);
}

/** What the caller of an exchange does with the upstream's messages while the answer streams. */
export interface ExchangeSinks {
  /** Receives the upstream's progress, log and list-changed notifications. */
  notify?: NotificationSink;
  /** Passes the upstream's requests to the client; without it (or when it declines) they are refused. */
  request?: RequestSink;
}

/** Headers of a `GET` for the session's event stream (resuming after `lastEventId` when given). */
export function streamHeaders(target: ExchangeTarget, lastEventId?: string): Headers {
  const headers = headersFor(target);
  headers.set("accept", "text/event-stream");
  headers.delete("content-type");
  if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
  return headers;
}

/** The JSON-RPC message an SSE event carries, or undefined (another event type, or not JSON). */
export function jsonMessage(event: { event?: string | undefined; data: string }): unknown {
  if (event.event !== undefined && event.event !== "message") return undefined;
  try {
    return JSON.parse(event.data) as unknown;
  } catch {
    return undefined;
  }
}

/** Where a stream stopped: the last event id it carried and the `retry` it asked for. */
interface StreamPosition {
  lastEventId?: string;
  retryMs?: number;
}

/**
 * Reads one SSE stream for the event that answers `id`; progress and other
 * messages are relayed or skipped, requests relayed or refused. Null when the
 * stream ended first (the upstream may have closed it to be resumed).
 */
async function readStream(
  body: ReadableStream<Uint8Array>,
  id: number,
  refuse: (request: UpstreamRequest) => Promise<void>,
  sinks: ExchangeSinks,
  position: StreamPosition,
): Promise<ExchangeAnswer | null> {
  const { notify } = sinks;
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream({
      onRetry: (retry) => {
        position.retryMs = retry;
      },
    }),
  );
  const reader = events.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return null;
      if (next.value.id !== undefined) position.lastEventId = next.value.id;
      const parsed = jsonMessage(next.value);
      if (parsed === undefined) continue;
      const notification = notify === undefined ? null : relayedNotification(parsed);
      if (notification !== null) {
        // A client that went away must not fail the call: the notification is dropped.
        await notify?.(notification).catch(() => undefined);
        continue;
      }
      const request = upstreamRequest(parsed);
      if (request !== null) {
        const relayed = (await sinks.request?.(request).catch(() => false)) ?? false;
        if (!relayed) await refuse(request);
        continue;
      }
      const answer = answerOf(parsed, id);
      if (answer) return answer;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The answer to `id` from an SSE stream. An upstream may close the stream
 * before it answers and expect its client to come back for the rest (a GET
 * with Last-Event-ID, after the `retry` it sent): the gateway does, a few
 * times, within the exchange's deadline.
 */
async function answerFromStream(
  target: ExchangeTarget,
  body: ReadableStream<Uint8Array>,
  id: number,
  refuse: (request: UpstreamRequest) => Promise<void>,
  sinks: ExchangeSinks,
  signal: AbortSignal,
): Promise<ExchangeAnswer> {
  const position: StreamPosition = {};
  let stream = body;
  for (let attempt = 0; ; attempt++) {
    const answer = await readStream(stream, id, refuse, sinks, position);
    if (answer !== null) return answer;
    const { lastEventId } = position;
    if (lastEventId === undefined || attempt >= KNOBS.streamResumeAttempts) {
      return { kind: "unusable", message: "the event stream ended without an answer" };
    }
    const delay = Math.min(
      position.retryMs ?? KNOBS.streamResumeDefaultDelayMs,
      KNOBS.streamResumeMaxDelayMs,
    );
    await new Promise((resolve) => setTimeout(resolve, delay));
    const resumed = await fetch(target.url, {
      method: "GET",
      headers: streamHeaders(target, lastEventId),
      signal,
    });
    if (!resumed.ok || resumed.body === null) {
      await resumed.body?.cancel();
      return { kind: "unusable", message: `resuming the event stream failed (HTTP ${resumed.status})` };
    }
    stream = resumed.body;
  }
}

/** Posts one request (with `id`) or notification (without) and reads its answer. */
export async function exchange(
  target: ExchangeTarget,
  message: { method: string; params?: Record<string, unknown>; id?: number },
  signal: AbortSignal,
  sinks: ExchangeSinks = {},
): Promise<ExchangeAnswer> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: headersFor(target),
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    signal,
  });
  const sessionId = response.headers.get(SESSION_HEADER);
  const type = (response.headers.get("content-type") ?? "").toLowerCase();
  if (message.id === undefined) {
    await response.body?.cancel();
    return response.ok ? { kind: "accepted", sessionId } : { kind: "http_error", status: response.status };
  }
  if (!response.ok && !type.includes("application/json")) {
    await response.body?.cancel();
    return { kind: "http_error", status: response.status };
  }
  let answer: ExchangeAnswer;
  if (type.includes("text/event-stream") && response.body) {
    const session = { ...target, sessionId: sessionId ?? target.sessionId };
    answer = await answerFromStream(
      session,
      response.body,
      message.id,
      (request) => refuseUpstreamRequest(session, request, signal),
      sinks,
      signal,
    );
  } else if (type.includes("application/json")) {
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch {
      return { kind: "unusable", message: "the answer is not JSON" };
    }
    // A batch answer to a single request carries one element.
    const single = Array.isArray(parsed) ? (parsed as unknown[])[0] : parsed;
    answer = answerOf(single, message.id) ?? {
      kind: "unusable",
      message: "the answer is not a JSON-RPC response",
    };
    if (answer.kind === "unusable" && !response.ok) return { kind: "http_error", status: response.status };
  } else {
    await response.body?.cancel();
    return { kind: "unusable", message: `unexpected content type ${type || "(none)"}` };
  }
  // An HTTP error with a JSON-RPC body (e.g. the SDK's 400 "Server not initialized") is a transport refusal.
  if (!response.ok) return { kind: "http_error", status: response.status };
  return answer.kind === "result" ? { ...answer, sessionId } : answer;
}
