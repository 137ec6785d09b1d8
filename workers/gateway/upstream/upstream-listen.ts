// A client's standalone stream: what its upstream sessions send outside any
// request (log messages, list changes, resource updates, a roots/list at the
// start of a session). Only a stateful upstream has such a stream; it is read
// with the session the client's calls use, so what it says is about them.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { jsonMessage, streamHeaders } from "./mcp-exchange";
import type { UpstreamEndpoint, UpstreamSession } from "./upstream-session";

/** The upstream's standalone stream for an open stateful session, or null when it offers none. */
export async function listenUpstream(
  endpoint: UpstreamEndpoint,
  session: UpstreamSession,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array> | null> {
  const headers = streamHeaders({ url: endpoint.url, bearerToken: endpoint.bearerToken, ...session });
  const response = await fetch(endpoint.url, { method: "GET", headers, signal }).catch(() => null);
  if (response === null) return null;
  const type = (response.headers.get("content-type") ?? "").toLowerCase();
  if (!response.ok || response.body === null || !type.includes("text/event-stream")) {
    await response.body?.cancel();
    return null;
  }
  return response.body;
}

/** Each JSON message of an event stream, in order, until it ends or `signal` aborts. */
export async function eachMessage(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onMessage: (message: unknown) => Promise<void>,
): Promise<void> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      const parsed = jsonMessage(next.value);
      if (parsed !== undefined) await onMessage(parsed);
    }
  } catch {
    // A stream cut off (the client left, the upstream went away) just ends.
  } finally {
    signal.removeEventListener("abort", stop);
    await reader.cancel().catch(() => undefined);
  }
}
