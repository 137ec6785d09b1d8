// Requests to an upstream over its remembered MCP session. An upstream is
// initialized once per isolate and owner (the MCP handshake: the SDK client's
// initialize + notifications/initialized) and its session — the session id of
// a stateful server, none for a stateless one — and negotiated protocol
// version are reused, each request going out on an SDK transport made with
// them (exchange.ts), so it costs a single POST. A remembered session the
// upstream no longer knows (HTTP 404, or 400 from a server that became
// stateful) is replaced by a fresh handshake and the request sent once more:
// the upstream refused it at the transport, so it never ran.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RelayCapabilities } from "../wire/relay";
import { exchange, type ExchangeAnswer, type ExchangeSinks } from "./exchange";
import { gatewayTransport } from "./transport";
import type { UpstreamRequest } from "./upstream-messages";
import { boundedCache } from "../../../shared/cache";
import { KNOBS } from "../../../shared/knobs";
import { LIMITS } from "../../../shared/limits";
import { upstreamClient } from "../../../shared/services/upstream";

export interface UpstreamSession {
  sessionId: string | null;
  protocolVersion: string;
}

/** Whose session: the workspace, the service and the client's own MCP session, when it has one. */
export interface SessionOwner {
  workspaceUid: string;
  serviceUid: string;
  clientSession?: string;
}

export interface UpstreamEndpoint {
  url: string;
  bearerToken: string | null;
  /** Bound on the whole request: the handshake when one is needed, and the request. */
  timeoutMs: number;
  owner: SessionOwner;
  /**
   * What the gateway declares to the upstream on this owner's behalf: the
   * client capabilities it relays requests for (none when it relays none).
   */
  capabilities?: RelayCapabilities;
}

/**
 * The endpoint of one service for one client: its own upstream session when it
 * has one, declaring the capabilities relayed to it (none without a session).
 */
export function serviceEndpoint(
  service: { uid: string; url: string; timeoutMs: number | null },
  bearerToken: string | null,
  client: { workspaceUid: string; sessionId?: string; capabilities?: RelayCapabilities },
): UpstreamEndpoint {
  const { workspaceUid, sessionId, capabilities } = client;
  return {
    url: service.url,
    bearerToken,
    timeoutMs: service.timeoutMs ?? LIMITS.upstreamTimeoutMs,
    owner: {
      workspaceUid,
      serviceUid: service.uid,
      ...(sessionId === undefined ? {} : { clientSession: sessionId }),
    },
    ...(sessionId === undefined || capabilities === undefined ? {} : { capabilities }),
  };
}

export type SessionAnswer =
  | ExchangeAnswer
  /** No answer within the endpoint's timeout. */
  | { kind: "timeout"; message: string }
  /** The handshake failed or the request could not be sent. */
  | { kind: "unreachable"; message: string };

/** What the caller does with the upstream's messages during the request. */
export interface SessionSinks {
  notify?: ExchangeSinks["notify"];
  /** Receives the upstream's requests with the session they arrived on; false: refuse them. */
  request?: (request: UpstreamRequest, session: UpstreamSession) => Promise<boolean>;
}

// Keyed by owner, URL and token: a session belongs to the workspace, service
// and client session that opened it, so stateful upstream state never crosses
// tenants or clients, and to the token it was opened with. The token is already
// in this isolate's memory while calls run; it never leaves it.
const sessions = boundedCache<string, UpstreamSession>({ entries: KNOBS.upstreamSessionEntries });

/** For tests: forget every upstream session. */
export function clearUpstreamSessions(): void {
  sessions.clear();
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

let nextId = 1;

export function summary(answer: SessionAnswer): string {
  switch (answer.kind) {
    case "http_error":
      return `HTTP ${answer.status}`;
    case "rpc_error":
    case "unusable":
    case "timeout":
    case "unreachable":
      return answer.message;
    default:
      return answer.kind;
  }
}

async function handshake(
  endpoint: UpstreamEndpoint,
  signal: AbortSignal,
): Promise<UpstreamSession | { failed: string }> {
  const { url, bearerToken } = endpoint;
  const { transport, lastPost } = gatewayTransport(
    { url, bearerToken, sessionId: null, protocolVersion: null },
    signal,
  );
  const client = upstreamClient(endpoint.capabilities ?? {});
  try {
    await client.connect(transport, { signal, timeout: endpoint.timeoutMs });
  } catch (error) {
    // Unsent or cut off: thrown like any request's transport failure.
    if (signal.aborted || lastPost() === undefined) throw error;
    // The SDK sets the version it negotiated before it sends notifications/initialized.
    const step = transport.protocolVersion === undefined ? "initialize failed" : "initialized was refused";
    const why = error instanceof StreamableHTTPError ? `HTTP ${lastPost()?.status}` : describe(error);
    return { failed: `${step} (${why})` };
  } finally {
    await client.close();
  }
  const { sessionId, protocolVersion } = transport;
  if (protocolVersion === undefined) return { failed: "initialize failed (no protocol version)" };
  return { sessionId: sessionId ?? null, protocolVersion };
}

/**
 * The owner's remembered session, or a new one. Two requests of one owner that
 * start together (a client's standalone stream and its first call) may both
 * open one; the first remembered is the one both use. A handshake is never
 * shared between requests: in a Worker, I/O started for one request is bound
 * to that request's context and connection limit.
 */
export async function openSession(
  endpoint: UpstreamEndpoint,
  signal: AbortSignal,
): Promise<UpstreamSession | { failed: string }> {
  const key = sessionKeyOf(endpoint);
  const known = sessions.get(key);
  if (known !== undefined) return known;
  const opened = await handshake(endpoint, signal);
  if ("failed" in opened) return opened;
  const first = sessions.get(key);
  if (first !== undefined) return first;
  sessions.set(key, opened);
  return opened;
}

const sessionKeyOf = ({ owner, url, bearerToken, capabilities }: UpstreamEndpoint): string =>
  [
    owner.workspaceUid,
    owner.serviceUid,
    owner.clientSession ?? "",
    url,
    bearerToken ?? "",
    JSON.stringify(capabilities ?? {}),
  ].join("\n");

/** One request over the owner's session. */
export async function requestUpstream(
  endpoint: UpstreamEndpoint,
  message: { method: string; params?: Record<string, unknown> },
  sinks: SessionSinks = {},
): Promise<SessionAnswer> {
  const { url, bearerToken, timeoutMs } = endpoint;
  const key = sessionKeyOf(endpoint);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let session = sessions.get(key);
    let remembered = session !== undefined;
    for (;;) {
      if (session === undefined) {
        const opened = await openSession(endpoint, signal);
        if ("failed" in opened) return { kind: "unreachable", message: opened.failed };
        session = opened;
      }
      const current = session;
      const answer = await exchange({ url, bearerToken, ...current }, { ...message, id: nextId++ }, signal, {
        ...(sinks.notify === undefined ? {} : { notify: sinks.notify }),
        ...(sinks.request === undefined
          ? {}
          : {
              request: (request: UpstreamRequest) =>
                sinks.request?.(request, current) ?? Promise.resolve(false),
            }),
      });
      if (remembered && answer.kind === "http_error" && (answer.status === 404 || answer.status === 400)) {
        sessions.delete(key);
        session = undefined;
        remembered = false;
        continue;
      }
      return answer;
    }
  } catch (error) {
    if (signal.aborted)
      return { kind: "timeout", message: `The upstream did not answer within ${timeoutMs} ms.` };
    return { kind: "unreachable", message: describe(error) };
  }
}
