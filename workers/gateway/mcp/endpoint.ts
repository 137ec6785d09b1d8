// `POST /mcp/{ws}`: MCP over Streamable HTTP, stateless (a server per
// request), with the SDK's low-level Server and web-standard transport.
// `initialize` and `ping` are the SDK's; `tools/list` and `tools/call` go
// through the pipeline. JSON responses unless the client accepts only SSE.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  ServerNotificationSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ServerNotification,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_META_KEY } from "../../../shared/approvals";
import { isJsonObject, nestsDeeperThan, utf8Bytes, type JsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { workspaceCatalog } from "../caches/catalog-cache";
import { offeredCapabilities, type PassthroughScope } from "../upstream/passthrough";
import { issueSessionId, relayCapabilities, sessionCapabilities } from "../upstream/client-session";
import { discoverTools } from "../discovery/tools-list";
import { parsedJson } from "../../../shared/mcp/tool-results";
import { plainToolCall } from "./shapes";
import type { ClientRequestRelay, GatewayEnv, UpstreamNotificationRelay } from "../tool-call/call-types";
import { handleToolCall } from "../tool-call/tool-call";
import { problemResponse } from "../../../shared/http/problem";
import { admitOnLease, currentCatalog, type Admitted } from "../auth";
import { refuseBatch } from "./batch";
import { mcpRateRefusal, type RateEnv } from "../rate-limit";
import { mcpOrigin, SESSION_HEADER } from "./origin";
import type { Scope } from "./scope";
import { INVALID_PARAMS_META_KEY, withToolCallParamsChecked } from "./params";
import { registerPassthrough } from "./passthrough";
import { forwardClientAnswers } from "./relay";
import { LazyEventStream } from "./stream";
import { RpcError, bareMessage } from "./rpc-error";
import { CODE_MODE_TOOLS, callCodeModeTool, endpointMode, type McpMode } from "../code-mode";

export const SERVER_INFO = { name: "rayrun-gateway", version: "1.0.0" };
/** The `_meta` key every tool result carries its request id in (the logs' correlation id). */
export const REQUEST_ID_META_KEY = "rayrun/requestId";

function withRequestId(result: CallToolResult, requestId: string): CallToolResult {
  return { ...result, _meta: { ...result._meta, [REQUEST_ID_META_KEY]: requestId } };
}

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

/** Passes the upstream's progress and log notifications on the client's stream, as the protocol shapes them. */
function relayTo(send: (notification: ServerNotification) => Promise<void>): UpstreamNotificationRelay {
  return async (notification) => {
    const parsed = ServerNotificationSchema.safeParse(notification);
    if (parsed.success) await send(parsed.data);
  };
}

/** `tools/call` through the pipeline; tool-level refusals are results, the rest RpcErrors. */
async function callTool(
  scope: Scope,
  request: CallToolRequest,
  relay?: UpstreamNotificationRelay,
  requestRelay?: ClientRequestRelay,
): Promise<CallToolResult> {
  const { env, ctx, workspaceUid, caller, origin, receivedAt } = scope;
  const invalid = request.params._meta?.[INVALID_PARAMS_META_KEY];
  if (typeof invalid === "string") throw new RpcError(ErrorCode.InvalidParams, invalid);
  const { name } = request.params;
  const given = parsedJson(request.params.arguments ?? {});
  const args: JsonObject = isJsonObject(given) ? given : {};
  const approval = request.params._meta?.[APPROVAL_META_KEY];
  const progressToken = request.params._meta?.progressToken;
  if (approval !== undefined && typeof approval !== "string") {
    throw new RpcError(ErrorCode.InvalidParams, `_meta["${APPROVAL_META_KEY}"] must be a string.`);
  }
  const requestId = crypto.randomUUID();
  let answer;
  try {
    answer = await handleToolCall(env, ctx, {
      workspaceUid,
      name,
      arguments: args,
      approvalId: approval ?? null,
      caller,
      requestId,
      receivedAt,
      ...origin,
      ...(typeof progressToken === "string" || typeof progressToken === "number" ? { progressToken } : {}),
      ...(relay === undefined ? {} : { relay }),
      clientCapabilities: scope.clientCapabilities,
      ...(requestRelay === undefined ? {} : { requestRelay }),
    });
  } catch (error) {
    console.error("tool call failed", { requestId, error: String(error) });
    throw new RpcError(ErrorCode.InternalError, `Internal error (request ${requestId}).`);
  }
  if (answer.kind === "unknown_tool") throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  if (answer.kind === "upstream_error") {
    throw new RpcError(answer.code, bareMessage(answer.code, answer.message), answer.data);
  }
  return withRequestId(answer.result, requestId);
}

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
      : callTool(scope, request, streaming ? relayTo(extra.sendNotification) : undefined),
  );
  return server;
}

/** The JSON-RPC answer to request `id` for a tools/call outcome. */
async function toolCallAnswer(
  scope: Scope,
  id: string | number,
  run: Promise<CallToolResult>,
): Promise<unknown> {
  try {
    return { jsonrpc: "2.0", id, result: await run };
  } catch (error) {
    const rpc =
      error instanceof RpcError
        ? {
            code: error.code,
            message: error.message,
            ...(error.data === undefined ? {} : { data: error.data }),
          }
        : { code: ErrorCode.InternalError, message: "Internal error." };
    return { jsonrpc: "2.0", id, error: rpc };
  }
}

/**
 * The hot path without the SDK server: a single `tools/call` is handled
 * directly (building a Server and transport per request costs more than the
 * rest of a pass-through call). A client that takes a stream gets one only
 * when something must reach it before the result (stream.ts). Everything
 * else — initialize, ping, lists, batches, malformed messages — goes through
 * the SDK, which also owns every protocol error. Returns null to fall back.
 */
async function fastToolCall(
  scope: Scope,
  request: Request,
  message: unknown,
  takes: { json: boolean; stream: boolean },
): Promise<Response | null> {
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const call = plainToolCall(message);
  if (call === null) return null;
  const { id } = call;
  if (!takes.stream) return Response.json(await toolCallAnswer(scope, id, callTool(scope, call.request)));
  const stream = new LazyEventStream(!takes.json);
  const relay: UpstreamNotificationRelay = async (notification) => {
    const parsed = ServerNotificationSchema.safeParse(notification);
    if (parsed.success) stream.send({ jsonrpc: "2.0", ...parsed.data });
  };
  const requestRelay: ClientRequestRelay = async (upstream) => stream.send({ jsonrpc: "2.0", ...upstream });
  const done = toolCallAnswer(scope, id, callTool(scope, call.request, relay, requestRelay)).then((answer) =>
    stream.finish(answer),
  );
  // The answer may outlive the returned Response when it streams.
  scope.ctx.waitUntil(done);
  return stream.response;
}

/** A JSON-RPC error answered before the protocol starts. */
const refusal = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });

/**
 * The body's JSON, or undefined when it is not JSON (the SDK answers that);
 * or the refusal of a body too large or nested too deep for the SDK's schemas.
 */
async function readMessage(request: Request): Promise<{ message: unknown } | { refused: Response }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = { refused: refusal(413, -32000, "Request body too large.") };
  if (declared > LIMITS.requestBodyBytes) return tooLarge;
  const text = await request.text();
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a body that could be over the limit is encoded.
  if (text.length * 3 > LIMITS.requestBodyBytes && utf8Bytes(text) > LIMITS.requestBodyBytes) return tooLarge;
  let message: unknown;
  try {
    message = JSON.parse(text) as unknown;
  } catch {
    return { message: undefined };
  }
  if (nestsDeeperThan(message, LIMITS.jsonDepth)) {
    return {
      refused: refusal(
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
  if (mode === null) return refusal(400, ErrorCode.InvalidRequest, 'Unknown mode: use "code", or no mode.');
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
  if (!origin.ok) return problemResponse(origin.problem);
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
    const refused = refuseBatch(parsedBody, request.headers.get("mcp-protocol-version"));
    if (refused !== null) return refused;
    // A call that asks for progress is answered on a stream when the client takes one, so the
    // upstream's progress and log notifications can reach it before the result.
    const takesStream = acceptsEventStream(request.headers.get("accept"));
    if (json && takesStream && asksForProgress(parsedBody)) json = false;
    if (parsedBody !== undefined) {
      const answers = await forwardClientAnswers(scope, parsedBody, async () => {
        const again = await admitOnLease(env, workspaceUid, admitted);
        return again.ok ? null : again.problem;
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
  if (!current.ok) return problemResponse(current.problem);
  scope.catalog = current.catalog;
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
