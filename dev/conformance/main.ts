// Serves the conformance reference server (server.ts) over Streamable HTTP on
// http://127.0.0.1:<port>/mcp, one stateful session per client so GET streams,
// resumability and subscriptions work.
//
//   npx tsx dev/conformance/main.ts --port 0     (or PORT=…; 0 picks a free port)
//
// Prints exactly one line, `listening http://127.0.0.1:<port>/mcp`, once ready.
//
// It uses the SDK's web-standard transport behind a small node:http bridge
// rather than the Node wrapper, because it must adjust one request header (see
// `toWebRequest`) and the wrapper builds its Request from the raw socket
// headers.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "./event-store.ts";
import { createConformanceServer } from "./server.ts";

/** `retry:` hint in priming events: how long a client waits before resuming a closed stream. */
const RETRY_MS = 200;
/** Sessions nobody has used for this long, with no stream open, are closed. */
const IDLE_SESSION_MS = 10 * 60_000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** DNS-rebinding protection: only these host names, on any port, in Host and Origin. */
const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

interface Session {
  readonly server: McpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The protocol version initialize settled on. */
  readonly protocolVersion: string;
  openResponses: number;
  lastActive: number;
}

const sessions = new Map<string, Session>();

/** A refusal answered as a JSON-RPC error body with this HTTP status. */
class HttpError extends Error {
  readonly status: number;
  readonly code: number;
  constructor(status: number, code: number, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isLocalHostname(hostname: string | undefined): boolean {
  return hostname !== undefined && LOCAL_HOSTNAMES.has(hostname.toLowerCase());
}

function hostnameOf(url: string): string | undefined {
  return URL.parse(url)?.hostname;
}

// A web page on evil.example that resolves to 127.0.0.1 reaches us with its
// own name in Host (and Origin, if the browser sends one): refuse both. The
// port is not checked, so whatever forwards to us may use any local port.
function checkDnsRebinding(req: IncomingMessage): void {
  const host = header(req, "host");
  if (!isLocalHostname(host === undefined ? undefined : hostnameOf(`http://${host}`))) {
    throw new HttpError(403, -32000, `Forbidden: Host ${host ?? "(none)"} is not a local host name`);
  }
  const origin = header(req, "origin");
  if (origin !== undefined && !isLocalHostname(hostnameOf(origin))) {
    throw new HttpError(403, -32000, `Forbidden: Origin ${origin} is not local`);
  }
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, -32000, "Payload too large");
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, -32700, "Parse error");
  }
}

async function openSession(requestedVersion: string): Promise<Session> {
  const server = createConformanceServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    eventStore: new InMemoryEventStore(),
    retryInterval: RETRY_MS,
    onsessioninitialized: (id) => {
      sessions.set(id, session);
    },
    // DELETE from the client; idle expiry and shutdown forget sessions themselves.
    onsessionclosed: (id) => {
      sessions.delete(id);
    },
  });
  const session: Session = {
    server,
    transport,
    // Mirrors the SDK server's negotiation: the client's version if supported, else the latest.
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requestedVersion)
      ? requestedVersion
      : LATEST_PROTOCOL_VERSION,
    openResponses: 0,
    lastActive: Date.now(),
  };
  await server.connect(transport);
  return session;
}

// Whether the transport starts a POST stream with a priming event (an id and
// empty data, SEP-1699) and lets a tool close the stream mid-call depends on
// the request's MCP-Protocol-Version header being at least 2025-11-25; older
// clients choke on empty data. The conformance suite 0.1.16 sends
// `2025-03-26` on its raw probes (server-sse-polling, fixed upstream in
// modelcontextprotocol/conformance#366) from a session that negotiated
// 2025-11-25. The version settled at initialize is the authority, so a
// supported but older header is raised to it; an unsupported one is left for
// the transport to refuse.
function toWebRequest(req: IncomingMessage, session: Session): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, item);
    }
  }
  const version = headers.get("mcp-protocol-version");
  if (
    version !== null &&
    SUPPORTED_PROTOCOL_VERSIONS.includes(version) &&
    version < session.protocolVersion
  ) {
    headers.set("mcp-protocol-version", session.protocolVersion);
  }
  return new Request(`http://${header(req, "host")}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
  });
}

// Streams the transport's Response out as it is produced (SSE), and cancels it
// when the client goes away so the transport forgets the dead stream.
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => {
    reader.cancel().catch(() => {
      // Already finished or errored: nothing to release.
    });
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

function writeError(res: ServerResponse, error: HttpError): void {
  res
    .writeHead(error.status, { "Content-Type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code: error.code, message: error.message }, id: null }));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (URL.parse(req.url ?? "", "http://localhost")?.pathname !== "/mcp") {
    throw new HttpError(404, -32000, "Not found: the MCP endpoint is /mcp");
  }
  checkDnsRebinding(req);
  const body = req.method === "POST" ? await readJsonBody(req) : undefined;

  const sessionId = header(req, "mcp-session-id");
  let session = sessionId === undefined ? undefined : sessions.get(sessionId);
  if (sessionId !== undefined && session === undefined) {
    throw new HttpError(404, -32001, "Session not found");
  }
  if (session === undefined) {
    if (!isInitializeRequest(body)) {
      throw new HttpError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    session = await openSession(body.params.protocolVersion);
  }

  const active = session;
  active.openResponses += 1;
  active.lastActive = Date.now();
  res.on("close", () => {
    active.openResponses -= 1;
    active.lastActive = Date.now();
  });
  const response = await active.transport.handleRequest(toWebRequest(req, active), {
    parsedBody: body,
  });
  await writeResponse(response, res);
}

const httpServer = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (res.headersSent) {
      res.destroy();
    } else {
      writeError(res, error instanceof HttpError ? error : new HttpError(500, -32603, "Internal error"));
    }
    if (!(error instanceof HttpError)) console.error(error);
  });
});

// The SDK client never deletes its session, so without this every suite run
// would leave its sessions behind for the life of the process.
const reaper = setInterval(() => {
  const cutoff = Date.now() - IDLE_SESSION_MS;
  for (const [id, session] of sessions) {
    if (session.openResponses === 0 && session.lastActive < cutoff) {
      sessions.delete(id);
      session.server.close().catch((error: unknown) => console.error(error));
    }
  }
}, 60_000);
reaper.unref();

async function shutdown(): Promise<void> {
  clearInterval(reaper);
  const closing = [...sessions.values()].map((session) => session.server.close());
  sessions.clear();
  await Promise.allSettled(closing);
  httpServer.closeAllConnections();
  await new Promise((resolve) => httpServer.close(resolve));
}

function parsePort(): number {
  const { values } = parseArgs({ options: { port: { type: "string" } } });
  const raw = values.port ?? process.env["PORT"] ?? "0";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`Invalid port: ${raw}`);
  }
  return port;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

httpServer.listen(parsePort(), "127.0.0.1", () => {
  const { port } = httpServer.address() as AddressInfo;
  console.log(`listening http://127.0.0.1:${port}/mcp`);
});
