// One JSON-RPC request to an upstream over the SDK's transport (transport.ts)
// and its answer, read as JSON or from an event stream, with what the
// upstream sends meanwhile — progress, log and list-changed notifications,
// requests for the client — passed to the caller's sinks in the order it came.
// The transport alone, not the SDK's `Client` (dist/esm, 1.32.2): a Client
// answers every request it receives itself (shared/protocol.js:288-316) where
// the gateway passes it to its own client, whose answer comes in a later POST
// (mcp/relay.ts); it drops progress for tokens it did not issue
// (protocol.js:452-458) where the client's own token goes upstream; and it
// runs `initialize` again on any transport without a session id
// (client/index.js:278), as every stateless upstream's is.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { KNOBS } from "../../../shared/knobs";
import {
  gatewayTransport,
  refuseUpstreamRequest,
  retryOf,
  streamEnd,
  type ExchangeTarget,
} from "./transport";
import {
  relayedNotification,
  upstreamRequest,
  type NotificationSink,
  type RequestSink,
} from "./upstream-messages";

export type ExchangeAnswer =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "rpc_error"; code: number; message: string; data?: unknown }
  /** An HTTP-level refusal (e.g. 404 for an expired session). */
  | { kind: "http_error"; status: number }
  | { kind: "unusable"; message: string };

/** What the caller of an exchange does with the upstream's messages while the answer streams. */
export interface ExchangeSinks {
  /** Receives the upstream's progress, log and list-changed notifications. */
  notify?: NotificationSink;
  /** Passes the upstream's requests to the client; without it (or when it declines) they are refused. */
  request?: RequestSink;
}

function answerOf(message: JSONRPCMessage, id: number): ExchangeAnswer | null {
  if ("result" in message) return message.id === id ? { kind: "result", result: message.result } : null;
  if (!("error" in message) || (message.id !== id && message.id !== undefined)) return null;
  const { code, message: text, data } = message.error;
  return { kind: "rpc_error", code, message: text, ...(data === undefined ? {} : { data }) };
}

const unusable = (message: string): ExchangeAnswer => ({ kind: "unusable", message });

/** `promise`, or the signal's reason once it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) {
      stop();
      return;
    }
    signal.addEventListener("abort", stop, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/**
 * Posts one request and reads its answer. An upstream may close an event
 * stream before it answers and expect its client to come back for the rest (a
 * GET with Last-Event-ID, after the `retry` it sent): the gateway does, a few
 * times, within the exchange's deadline. Transport failures (the request could
 * not be sent, a stream was cut off, the deadline passed) are thrown.
 */
export async function exchange(
  target: ExchangeTarget,
  request: { method: string; params?: Record<string, unknown>; id: number },
  signal: AbortSignal,
  sinks: ExchangeSinks = {},
): Promise<ExchangeAnswer> {
  const { transport, lastPost, lastGet } = gatewayTransport(target, signal);
  const { promise: settled, resolve: settle } = Promise.withResolvers<ExchangeAnswer | { thrown: unknown }>();
  // Sinks run one at a time in the order the messages came, and the answer after them all.
  let relaying: Promise<void> = Promise.resolve();
  const inOrder = (step: () => Promise<void>) => {
    relaying = relaying.then(step);
  };
  let done = false;
  const finish = (outcome: ExchangeAnswer | { thrown: unknown }) => {
    if (done) return;
    done = true;
    inOrder(async () => settle(outcome));
  };
  let lastEventId: string | undefined;
  const onresumptiontoken = (token: string) => {
    lastEventId = token;
  };
  let resumptions = 0;
  let waiting: ReturnType<typeof setTimeout> | undefined;
  const resume = async () => {
    const delay = Math.min(
      retryOf(transport) ?? KNOBS.streamResumeDefaultDelayMs,
      KNOBS.streamResumeMaxDelayMs,
    );
    await new Promise((resolve) => {
      waiting = setTimeout(resolve, delay);
    });
    if (done || lastEventId === undefined) return;
    try {
      await transport.resumeStream(lastEventId, { onresumptiontoken });
    } catch (error) {
      if (!(error instanceof StreamableHTTPError)) return finish({ thrown: error });
    }
    const resumed = lastGet();
    if (resumed === undefined || !resumed.ok)
      finish(unusable(`resuming the event stream failed (HTTP ${resumed?.status ?? "none"})`));
  };
  const ended = (cutOff: string | undefined) => {
    if (cutOff !== undefined) return finish({ thrown: new Error(cutOff) });
    if (lastEventId === undefined || resumptions >= KNOBS.streamResumeAttempts)
      return finish(unusable("the event stream ended without an answer"));
    resumptions++;
    inOrder(resume);
  };
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK's transport has no addEventListener
  transport.onmessage = (message) => {
    if (done) return;
    const end = streamEnd(message);
    if (end !== null) return ended(end.cutOff);
    const answer = answerOf(message, request.id);
    if (answer !== null) return finish(answer);
    const { notify } = sinks;
    const notification = notify === undefined ? null : relayedNotification(message);
    if (notify !== undefined && notification !== null) {
      // A client that went away must not fail the call: the notification is dropped.
      return inOrder(() => notify(notification).catch(() => undefined));
    }
    const asked = upstreamRequest(message);
    if (asked === null) return;
    inOrder(async () => {
      const relayed = (await sinks.request?.(asked).catch(() => false)) ?? false;
      // On the session the answer named, as a POST of its own: this transport carries one request.
      const session = { ...target, sessionId: transport.sessionId ?? target.sessionId };
      if (!relayed) await refuseUpstreamRequest(session, asked, signal);
    });
  };
  try {
    await transport.start();
    try {
      await transport.send({ jsonrpc: "2.0", ...request }, { onresumptiontoken });
    } catch (error) {
      const answered = lastPost();
      if (signal.aborted || answered === undefined) throw error;
      // The SDK throws its own error for an HTTP refusal (and for a media type it does not read),
      // and the parser's for an answer that is not JSON-RPC.
      if (!answered.ok) return { kind: "http_error", status: answered.status };
      if (error instanceof StreamableHTTPError)
        return unusable(`unexpected content type ${answered.contentType || "(none)"}`);
      return unusable(
        error instanceof SyntaxError ? "the answer is not JSON" : "the answer is not a JSON-RPC response",
      );
    }
    const answered = lastPost();
    // A JSON answer was read whole by send(); an accepted request gets no answer at all.
    if (!done && answered !== undefined && !answered.eventStream) {
      return unusable(
        answered.contentType.toLowerCase().includes("application/json")
          ? "the answer is not a JSON-RPC response"
          : `unexpected content type ${answered.contentType || "(none)"}`,
      );
    }
    const outcome = await untilAborted(settled, signal);
    if ("thrown" in outcome) throw outcome.thrown;
    return outcome;
  } finally {
    done = true;
    clearTimeout(waiting);
    await transport.close();
  }
}
