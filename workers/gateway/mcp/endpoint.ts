// `POST /mcp/{ws}`: MCP over Streamable HTTP, stateless (a server per
// request), with the SDK's low-level Server and web-standard transport.
// `initialize` and `ping` are the SDK's; `tools/list` and `tools/call` go
// through the pipeline. JSON responses unless the client accepts only SSE.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { problemResponse } from "../../../shared/http/problem";
import { isJsonObject, nestsDeeperThan } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { workspaceCatalog } from "../caches/catalog-cache";
import { CODE_MODE_TOOLS, callCodeModeTool, endpointMode, type McpMode } from "../code-mode";
import { discoverTools } from "../discovery/tools-list";
import type { GatewayEnv } from "../env";
import { admitOnLease, currentCatalog, type Admitted } from "../middleware/auth";
import { boundedText } from "../middleware/body-limit";
import { mcpRateRefusal, type RateEnv } from "../middleware/rate-limit";
import { issueSessionId, relayCapabilities, sessionCapabilities } from "../upstream/client-session";
import { offeredCapabilities, type PassthroughScope } from "../upstream/passthrough";
import { PROTOCOL_HEADER, SESSION_HEADER } from "../wire/headers";
import { mcpOrigin } from "../wire/origin";
import { RpcError, rpcRefusal, SERVER_ERROR } from "../wire/rpc-error";
import type { Scope } from "../wire/scope";
import { refuseBatch } from "./batch";
import { callTool, fastToolCall, notificationRelay } from "./call-tool";
import { withToolCallParamsChecked } from "./params";
import { registerPassthrough } from "./passthrough";
import { forwardClientAnswers } from "./relay";

export const SERVER_INFO = { name: "rayrun-gateway", version: "1.0.0" };
const passthroughScope = (scope: Scope): PassthroughScope => ({
  rootKey: scope.env.RAYRUN_BOOTSTRAP_KEY,
  workspaceUid: scope.workspaceUid,
  caller: scope.caller,
  catalog: scope.catalog,
  ...(scope.origin.sessionId === undefined ? {} : { clientSession: scope.origin.sessionId }),
  clientCapabilities: scope.clientCapabilities,
});

/** Whether a single message is a `tools/call` that carries a progress token. */
function asksForProgress(message: unknown): boolean {
  if (!isJsonObject(message) || message.method !== "tools/call" || !isJsonObject(message.params))
    return false;
  const meta = message.params._meta;
  return (
    isJsonObject(meta) && (typeof meta.progressToken === "string" || typeof meta.progressToken === "number")
  );
}

const acceptsEventStream = (accept: string | null): boolean =>
  (accept ?? "").toLowerCase().includes("text/event-stream");

function buildServer(scope: Scope, streaming: boolean, mode: McpMode): Server {
  // `logging`: the upstreams' log notifications are relayed to clients that take a stream.
  const offered = offeredCapabilities(scope.catalog);
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, logging: {}, ...offered } });
  registerPassthrough(server, offered, () => passthroughScope(scope));

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (mode === "code") return { tools: CODE_MODE_TOOLS };
    const answer = await discoverTools(scope.env, scope.workspaceUid, scope.caller);
    if (answer.kind === "revoked")
      throw new RpcError(ErrorCode.InvalidRequest, "The API key has been revoked.");
    return { tools: answer.tools };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    mode === "code"
      ? callCodeModeTool(scope, request)
      : callTool(scope, request, streaming ? notificationRelay(extra.sendNotification) : undefined),
  );
  return server;
}

/**
 * The body's JSON, or undefined when it is not JSON (the SDK answers that);
 * or the refusal of a body too large or nested too deep for the SDK's schemas.
 */
async function readMessage(request: Request): Promise<{ message: unknown } | { refused: Response }> {
  const bounded = await boundedText(request);
  if (!bounded.ok) return { refused: rpcRefusal(413, SERVER_ERROR, bounded.error.detail) };
  const text = bounded.value;
  let message: unknown;
  try {
    message = JSON.parse(text) as unknown;
  } catch {
    return { message: undefined };
  }
  if (nestsDeeperThan(message, LIMITS.jsonDepth)) {
    return {
      refused: rpcRefusal(
        400,
        ErrorCode.InvalidRequest,
        `The message nests arrays and objects more than ${LIMITS.jsonDepth} levels deep.`,
      ),
    };
  }
  return { message };
}

/**
 * The Accept header the SDK transport insists on (both types), and whether the
 * client asked for JSON: only a client that does not accept JSON gets SSE.
 */
function negotiate(accept: string | null): { json: boolean; accept: string } {
  const value = (accept ?? "").toLowerCase();
  const json =
    value === "" ||
    value.includes("application/json") ||
    value.includes("*/*") ||
    !value.includes("text/event-stream");
  return { json, accept: "application/json, text/event-stream" };
}

/** Admitted callers only: a revoked key was refused with 401 before this runs. */
export async function serveMcp(
  request: Request,
  env: GatewayEnv & RateEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  workspaceUid: string,
  admitted: Admitted,
): Promise<Response> {
  // `?mode=code` serves Code Mode (../code-mode); its calls take the SDK path below.
  const mode = endpointMode(request.url);
  if (mode === null)
    return rpcRefusal(400, ErrorCode.InvalidRequest, 'Unknown mode: use "code", or no mode.');
  const catalog = await workspaceCatalog(env, workspaceUid, admitted.caller.profile, {
    version: admitted.view.catalog,
  });
  const perMinute = catalog.rateLimits.mcpPerMinute;
  const limited = await mcpRateRefusal(env, perMinute, workspaceUid, admitted.caller.keyId);
  if (limited !== null) return limited;
  const negotiated = negotiate(request.headers.get("accept"));
  const { accept } = negotiated;
  let { json } = negotiated;
  const origin = mcpOrigin(request.headers);
  if (!origin.ok) return problemResponse(origin.error);
  const scope: Scope = {
    env,
    ctx,
    workspaceUid,
    caller: admitted.caller,
    receivedAt: admitted.receivedAt,
    origin: origin.value,
    catalog,
    clientCapabilities: sessionCapabilities(origin.value.sessionId),
  };
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  let parsedBody: unknown;
  if (request.method === "POST" && type.includes("application/json")) {
    const read = await readMessage(request);
    if ("refused" in read) return read.refused;
    parsedBody = withToolCallParamsChecked(read.message);
    const refused = refuseBatch(parsedBody, request.headers.get(PROTOCOL_HEADER));
    if (refused !== null) return refused;
    // A call that asks for progress is answered on a stream when the client takes one, so the
    // upstream's progress and log notifications can reach it before the result.
    const takesStream = acceptsEventStream(request.headers.get("accept"));
    if (json && takesStream && asksForProgress(parsedBody)) json = false;
    if (parsedBody !== undefined) {
      const answers = await forwardClientAnswers(scope, parsedBody, async () => {
        const again = await admitOnLease(env, workspaceUid, admitted);
        return again.ok ? null : again.error;
      });
      if (answers !== null) return answers;
      const fast =
        mode === "direct"
          ? await fastToolCall(scope, request, parsedBody, { json: negotiated.json, stream: takesStream })
          : null;
      if (fast !== null) return fast;
    }
  }
  // Off the hot path the catalog is confirmed current: initialize declares, and the lists
  // pass through, what the services offer now, not what an isolate copy remembers.
  const current = await currentCatalog(env, workspaceUid, admitted);
  if (!current.ok) return problemResponse(current.error);
  scope.catalog = current.value;
  const headers = new Headers(request.headers);
  headers.set("accept", accept);
  const server = buildServer(scope, !json, mode);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: json,
    maxRequestBodySize: LIMITS.requestBodyBytes,
  });
  await server.connect(transport);
  const forwarded = new Request(request.url, { method: request.method, headers });
  const response = await transport.handleRequest(
    forwarded,
    parsedBody === undefined ? undefined : { parsedBody },
  );
  if (json) ctx.waitUntil(server.close().catch(() => undefined));
  return withIssuedSession(parsedBody, response);
}

/** An accepted `initialize` gets a session id that carries the client's relayable capabilities. */
function withIssuedSession(message: unknown, response: Response): Response {
  if (!response.ok || !isJsonObject(message) || message.method !== "initialize") return response;
  const params = isJsonObject(message.params) ? message.params : {};
  const headers = new Headers(response.headers);
  headers.set(SESSION_HEADER, issueSessionId(relayCapabilities(params.capabilities)));
  return new Response(response.body, { status: response.status, headers });
}
