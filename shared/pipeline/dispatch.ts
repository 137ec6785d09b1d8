// The one upstream `tools/call` of a dispatched call. The bearer token comes
// from the workspace secret the service names; it is added here, after every
// hook has run, and never reaches a hook.
//
// An upstream is initialized once per isolate (the MCP handshake: initialize +
// notifications/initialized) and its session — the session id of a stateful
// server, none for a stateless one — and negotiated protocol version are
// reused, so a call costs a single POST. A remembered session the upstream no
// longer knows (HTTP 404, or 400 from a server that became stateful) is
// replaced by a fresh handshake and the call sent once more: the upstream
// refused it at the transport, so it never ran.
import {
  CallToolResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../json";
import {
  exchange,
  type ExchangeAnswer,
  type ExchangeTarget,
  type NotificationSink,
} from "../services/mcp-exchange";
import { plainToolResult } from "../services/mcp-shapes";
import { CLIENT_INFO } from "../services/upstream";

const SESSION_ENTRIES = 1024;

export type DispatchOutcome =
  | { kind: "result"; result: CallToolResult }
  /** A JSON-RPC error from the upstream: returned to the client as the upstream's error. */
  | { kind: "rpc_error"; code: number; message: string; data?: unknown }
  /** The upstream could not be reached or answered unusably. */
  | { kind: "unavailable"; message: string }
  /** The upstream did not answer within its service's timeout. */
  | { kind: "timeout"; message: string };

interface Session {
  sessionId: string | null;
  protocolVersion: string;
}

// Keyed by owner, URL and token: a session belongs to the workspace, service
// and client session that opened it, so stateful upstream state never crosses
// tenants or clients, and to the token it was opened with. The token is already
// in this isolate's memory while calls run; it never leaves it.
const sessions = new Map<string, Session>();

/** Where a call goes and whose upstream session it uses. */
export interface UpstreamTarget {
  url: string;
  bearerToken: string | null;
  /** Bound on the whole call: the handshake when one is needed and the tools/call. */
  timeoutMs: number;
  /** Whose session: the workspace, the service and the client's own MCP session, when it has one. */
  owner: { workspaceUid: string; serviceUid: string; clientSession?: string };
  /** The client's progress token, sent with the call so the upstream reports progress against it. */
  progressToken?: string | number;
  /** Where the upstream's progress and log notifications go during the call. */
  notify?: NotificationSink;
}

/** For tests: forget every upstream session. */
export function clearUpstreamSessions(): void {
  sessions.clear();
}

function remember(key: string, session: Session): void {
  sessions.delete(key);
  sessions.set(key, session);
  if (sessions.size > SESSION_ENTRIES) {
    const oldest = sessions.keys().next();
    if (!oldest.done) sessions.delete(oldest.value);
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

let nextId = 1;

async function handshake(
  url: string,
  bearerToken: string | null,
  signal: AbortSignal,
): Promise<Session | { failed: string }> {
  const base: ExchangeTarget = { url, bearerToken, sessionId: null, protocolVersion: null };
  const init = await exchange(
    base,
    {
      method: "initialize",
      id: nextId++,
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    },
    signal,
  );
  if (init.kind !== "result") return { failed: `initialize failed (${summary(init)})` };
  const version = init.result.protocolVersion;
  if (typeof version !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return { failed: `the upstream speaks an unsupported protocol version ${JSON.stringify(version)}` };
  }
  const session: Session = { sessionId: init.sessionId, protocolVersion: version };
  const initialized = await exchange(
    { ...base, ...session },
    { method: "notifications/initialized" },
    signal,
  );
  if (initialized.kind !== "accepted") return { failed: `initialized was refused (${summary(initialized)})` };
  return session;
}

function summary(answer: ExchangeAnswer): string {
  switch (answer.kind) {
    case "http_error":
      return `HTTP ${answer.status}`;
    case "rpc_error":
      return answer.message;
    case "unusable":
      return answer.message;
    default:
      return answer.kind;
  }
}

function outcomeOf(answer: ExchangeAnswer): DispatchOutcome {
  if (answer.kind === "rpc_error") {
    const { kind: _kind, ...error } = answer;
    return { kind: "rpc_error", ...error };
  }
  if (answer.kind !== "result") {
    return { kind: "unavailable", message: `The upstream answered unusably: ${summary(answer)}` };
  }
  const plain = plainToolResult(answer.result);
  if (plain !== null) return { kind: "result", result: plain };
  const parsed = CallToolResultSchema.safeParse(answer.result);
  // The pre-2024 `{ toolResult }` shape has no content: unusable here.
  if (!parsed.success || !Array.isArray(answer.result.content)) {
    return { kind: "unavailable", message: "The upstream answered tools/call without valid content." };
  }
  return { kind: "result", result: parsed.data };
}

export async function dispatchToolCall(
  target: UpstreamTarget,
  upstreamName: string,
  args: JsonObject,
): Promise<DispatchOutcome> {
  const { url, bearerToken, timeoutMs, owner } = target;
  const key = [owner.workspaceUid, owner.serviceUid, owner.clientSession ?? "", url, bearerToken ?? ""].join(
    "\n",
  );
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let session = sessions.get(key);
    let remembered = session !== undefined;
    for (;;) {
      if (session === undefined) {
        const opened = await handshake(url, bearerToken, signal);
        if ("failed" in opened) {
          return { kind: "unavailable", message: `The upstream could not be reached: ${opened.failed}` };
        }
        session = opened;
        remember(key, session);
      }
      const answer = await exchange(
        { url, bearerToken, ...session },
        {
          method: "tools/call",
          id: nextId++,
          params: {
            name: upstreamName,
            arguments: args,
            ...(target.progressToken === undefined ? {} : { _meta: { progressToken: target.progressToken } }),
          },
        },
        signal,
        target.notify,
      );
      if (remembered && answer.kind === "http_error" && (answer.status === 404 || answer.status === 400)) {
        sessions.delete(key);
        session = undefined;
        remembered = false;
        continue;
      }
      return outcomeOf(answer);
    }
  } catch (error) {
    if (signal.aborted) {
      return { kind: "timeout", message: `The upstream did not answer within ${timeoutMs} ms.` };
    }
    return { kind: "unavailable", message: `The upstream could not be reached: ${describe(error)}` };
  }
}
