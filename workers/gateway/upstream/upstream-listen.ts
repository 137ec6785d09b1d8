// A client's standalone stream: what its upstream sessions send outside any
// request (log messages, list changes, resource updates, a roots/list at the
// start of a session). Only a stateful upstream has such a stream; it is read
// with the SDK's transport (transport.ts) on the session the client's calls
// use, so what it says is about them. The SDK opens a standalone stream by
// itself only right after `notifications/initialized` (streamableHttp.js:388-391,
// 1.32.2), and the session here is usually a remembered one: `resumeStream`,
// the transport's one public way to open a GET, sends no Last-Event-ID for an
// empty event id (:97). The stream is not resumed when it ends: the client's
// own stream then ends too.
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { gatewayTransport, streamEnd } from "./transport";
import type { UpstreamEndpoint, UpstreamSession } from "./upstream-session";

/** An upstream's open standalone stream: its messages, in order, until it ends. */
export interface UpstreamStream {
  /** The next message, or null once the stream ended (or was let go). */
  next(): Promise<JSONRPCMessage | null>;
  close(): Promise<void>;
}

/** The upstream's standalone stream for an open stateful session, or null when it offers none. */
export async function listenUpstream(
  endpoint: UpstreamEndpoint,
  session: UpstreamSession,
  signal: AbortSignal,
): Promise<UpstreamStream | null> {
  const { url, bearerToken } = endpoint;
  const { transport, lastGet } = gatewayTransport({ url, bearerToken, ...session }, signal, {
    standalone: true,
  });
  const queue: JSONRPCMessage[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    ended = true;
    wake?.();
  };
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK's transport has no addEventListener
  transport.onmessage = (message) => {
    if (ended) return;
    if (streamEnd(message) !== null) {
      stop();
      // Closed at once, before the SDK could plan a resumption of its own.
      void transport.close();
      return;
    }
    queue.push(message);
    wake?.();
  };
  await transport.start();
  try {
    await transport.resumeStream("");
  } catch {
    // Refused or unreachable: no stream.
  }
  const opened = lastGet();
  if (opened === undefined || !opened.ok || !opened.eventStream) {
    await transport.close();
    return null;
  }
  return {
    next: async () => {
      for (;;) {
        const message = queue.shift();
        if (message !== undefined) return message;
        if (ended) return null;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    close: async () => {
      stop();
      await transport.close();
    },
  };
}

/** Each message of an upstream stream, in order, until it ends or `signal` aborts. */
export async function eachMessage(
  stream: UpstreamStream,
  signal: AbortSignal,
  onMessage: (message: JSONRPCMessage) => Promise<void>,
): Promise<void> {
  const stop = () => void stream.close();
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const message = await stream.next();
      if (message === null) return;
      await onMessage(message);
    }
  } catch {
    // A client gone, an upstream that refuses an answer: the stream just ends.
  } finally {
    signal.removeEventListener("abort", stop);
    await stream.close();
  }
}
