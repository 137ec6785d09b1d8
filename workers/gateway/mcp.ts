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
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_META_KEY } from "../../shared/approvals";
import { isJsonObject, type JsonObject } from "../../shared/json";
import { LIMITS } from "../../shared/limits";
import { discoverTools } from "../../shared/pipeline/discovery";
import { parsedJson } from "../../shared/pipeline/results";
import { handleToolCall, type Caller, type GatewayEnv } from "../../shared/pipeline/tool-call";

export const SERVER_INFO = { name: "rayrun-gateway", version: "1.0.0" };
/** The `_meta` key every tool result carries its request id in (the logs' correlation id). */
export const REQUEST_ID_META_KEY = "rayrun/requestId";

function withRequestId(result: CallToolResult, requestId: string): CallToolResult {
  return { ...result, _meta: { ...result._meta, [REQUEST_ID_META_KEY]: requestId } };
}

function buildServer(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  workspaceUid: string,
  caller: Caller,
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const answer = await discoverTools(env, workspaceUid, caller);
    if (answer.kind === "revoked")
      throw new McpError(ErrorCode.InvalidRequest, "The API key has been revoked.");
    return { tools: answer.tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const given = parsedJson(request.params.arguments ?? {});
    const args: JsonObject = isJsonObject(given) ? given : {};
    const approval = request.params._meta?.[APPROVAL_META_KEY];
    if (approval !== undefined && typeof approval !== "string") {
      throw new McpError(ErrorCode.InvalidParams, `_meta["${APPROVAL_META_KEY}"] must be a string.`);
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
      });
    } catch (error) {
      console.error("tool call failed", { requestId, error: String(error) });
      throw new McpError(ErrorCode.InternalError, `Internal error (request ${requestId}).`);
    }
    if (answer.kind === "unknown_tool") throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (answer.kind === "upstream_error") throw new McpError(answer.code, answer.message, answer.data);
    return withRequestId(answer.result, requestId);
  });
  return server;
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

export async function serveMcp(
  request: Request,
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  workspaceUid: string,
  caller: Caller,
): Promise<Response> {
  const { json, accept } = negotiate(request.headers.get("accept"));
  const headers = new Headers(request.headers);
  headers.set("accept", accept);
  const server = buildServer(env, ctx, workspaceUid, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: json,
    maxRequestBodySize: LIMITS.requestBodyBytes,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(new Request(request, { headers }));
  if (json) ctx.waitUntil(server.close().catch(() => undefined));
  return response;
}
