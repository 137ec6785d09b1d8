// The SDK's Streamable HTTP client transport as the gateway runs it: one per
// exchange with an upstream, made with the session remembered for it
// (upstream-session.ts), so a request costs one POST. Its `fetch` adds what
// the SDK leaves to the caller (lines of @modelcontextprotocol/sdk
// dist/esm/client/streamableHttp.js, 1.32.2):
// - the exchange's deadline on every request: the transport aborts its
//   requests only when closed (:318);
// - no standalone GET after `notifications/initialized`, which the transport
//   opens on its own (:388-391) and would hold a connection of the Worker's
//   request: it is answered 405 here, which the SDK takes as "no stream"
//   (:116-118). A client's standalone stream is opened only when the client
//   asks for one (upstream-listen.ts);
// - the status and media type of each answer, which the SDK does not report
//   (a 405 to a GET is silent, :116-118);
// - a marker message after the last event of every event stream: the SDK
//   says nothing when a stream ends (:231-243), and an exchange whose stream
//   ended without its answer must neither wait out its deadline nor miss a
//   message sent before the end.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { upstreamTransport } from "../../../shared/services/upstream";
import { refusalOf, type UpstreamRequest } from "./upstream-messages";

export interface ExchangeTarget {
  url: string;
  bearerToken: string | null;
  sessionId: string | null;
  /** Sent once negotiated (never on `initialize`). */
  protocolVersion: string | null;
}

/** What an upstream answered to one HTTP request. */
export interface HttpAnswer {
  status: number;
  ok: boolean;
  /** The raw `content-type`, "" when none. */
  contentType: string;
  eventStream: boolean;
}

export interface GatewayTransport {
  transport: StreamableHTTPClientTransport;
  /** The answer to the transport's last POST (or GET), undefined while none came or when the request failed. */
  lastPost: () => HttpAnswer | undefined;
  lastGet: () => HttpAnswer | undefined;
}

/** The method of the marker that ends every event stream; never sent by an upstream nor passed on. */
const STREAM_END = "notifications/rayrun/stream_end";

/** Whether `message` is the end of an event stream, and the failure that cut it off when one did. */
export function streamEnd(message: JSONRPCMessage): { cutOff?: string } | null {
  if (!("method" in message) || message.method !== STREAM_END || "id" in message) return null;
  const cutOff = message.params?.cutOff;
  return typeof cutOff === "string" ? { cutOff } : {};
}

const encoder = new TextEncoder();

/** The event that ends a stream; the blank lines first end an event the upstream left unfinished. */
const endEvent = (cutOff?: string): Uint8Array => {
  const marker = {
    jsonrpc: "2.0",
    method: STREAM_END,
    ...(cutOff === undefined ? {} : { params: { cutOff } }),
  };
  return encoder.encode(`\n\ndata: ${JSON.stringify(marker)}\n\n`);
};

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `body`, then the end marker (also when the stream was cut off: the caller decides what that means). */
function marked(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let cutOff: string | undefined;
      try {
        const next = await reader.read();
        if (!next.done) {
          controller.enqueue(next.value);
          return;
        }
      } catch (error) {
        cutOff = describe(error);
      }
      controller.enqueue(endEvent(cutOff));
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

const answerOf = (response: Response): HttpAnswer => {
  const contentType = response.headers.get("content-type") ?? "";
  const media = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  return {
    status: response.status,
    ok: response.ok,
    contentType,
    eventStream: media === "text/event-stream",
  };
};

/**
 * A transport for one exchange with `target` under `signal`. `standalone`:
 * the GET that opens a session's standalone stream goes out (only
 * upstream-listen.ts asks for it).
 */
export function gatewayTransport(
  target: ExchangeTarget,
  signal: AbortSignal,
  options: { standalone?: boolean } = {},
): GatewayTransport {
  let lastPost: HttpAnswer | undefined;
  let lastGet: HttpAnswer | undefined;
  const fetchUpstream: FetchLike = async (url, init) => {
    const get = (init?.method ?? "GET").toUpperCase() === "GET";
    const resuming = get && new Headers(init?.headers).has("last-event-id");
    if (get && !resuming && !options.standalone) return new Response(null, { status: 405 });
    if (get) lastGet = undefined;
    else lastPost = undefined;
    const own = init?.signal;
    const response = await fetch(url, { ...init, signal: own ? AbortSignal.any([own, signal]) : signal });
    const answer = answerOf(response);
    if (get) lastGet = answer;
    else lastPost = answer;
    if (!answer.ok || !answer.eventStream || response.body === null) return response;
    const { status, statusText, headers } = response;
    return new Response(marked(response.body), { status, statusText, headers });
  };
  const transport = upstreamTransport(
    target.url,
    { bearerToken: target.bearerToken },
    {
      ...(target.sessionId === null ? {} : { sessionId: target.sessionId }),
      fetch: fetchUpstream,
      // Never resumed by the SDK: its delays follow any `retry` an upstream asks for and its count
      // restarts with each stream (:136-138, :242); exchange.ts resumes under the gateway's bounds.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 0,
        maxReconnectionDelay: 0,
        reconnectionDelayGrowFactor: 1,
      },
    },
  );
  if (target.protocolVersion !== null) transport.setProtocolVersion(target.protocolVersion);
  // Failures surface where the caller waits (a rejected send, the end of a stream); the SDK's
  // reports of them (and of the resumptions it does not make) say nothing more.
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK's transport has no addEventListener
  transport.onerror = () => undefined;
  return { transport, lastPost: () => lastPost, lastGet: () => lastGet };
}

/** The `retry` an upstream's stream asked for: the SDK keeps it (:192-195) but offers no getter. */
export function retryOf(transport: StreamableHTTPClientTransport): number | undefined {
  const retry: unknown = Reflect.get(transport, "_serverRetryMs");
  return typeof retry === "number" ? retry : undefined;
}

/** Posts a JSON-RPC response to a request the upstream sent (its own id); the upstream's reply is not read. */
export async function answerUpstream(
  target: ExchangeTarget,
  response: { id: string | number; result: unknown } | { id: string | number; error: unknown },
  signal: AbortSignal,
): Promise<boolean> {
  const { transport } = gatewayTransport(target, signal);
  try {
    await transport.start();
    // Sent as the client wrote it: the upstream judges its answer.
    await transport.send({ jsonrpc: "2.0", ...response } as JSONRPCMessage);
    return true;
  } catch {
    return false;
  } finally {
    await transport.close();
  }
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
  await answerUpstream(target, refusalOf(request), signal);
}
