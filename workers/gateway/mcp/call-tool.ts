// `tools/call` in Direct Mode: through the tool-call path, its refusals as
// tool results and the rest as JSON-RPC errors. A single plain call takes the
// fast path, past the SDK's server, because building one per request costs
// more than the rest of a pass-through call.
import {
  ErrorCode,
  ServerNotificationSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_META_KEY } from "../../../shared/approvals";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { parsedJson } from "../../../shared/mcp/tool-results";
import { handleToolCall } from "../tool-call/tool-call";
import { PROTOCOL_HEADER } from "../wire/headers";
import { withRequestId } from "../wire/meta";
import type { ClientRequestRelay, UpstreamNotificationRelay } from "../wire/relay";
import { bareMessage, RpcError } from "../wire/rpc-error";
import type { Scope } from "../wire/scope";
import { plainToolCall } from "../wire/shapes";
import { INVALID_PARAMS_META_KEY } from "./params";
import { LazyEventStream } from "./stream";

/** Passes the upstream's progress and log notifications on the client's stream, as the protocol shapes them. */
export function notificationRelay(
  send: (notification: ServerNotification) => Promise<void>,
): UpstreamNotificationRelay {
  return async (notification) => {
    const parsed = ServerNotificationSchema.safeParse(notification);
    if (parsed.success) await send(parsed.data);
  };
}

/** `tools/call` through the pipeline; tool-level refusals are results, the rest RpcErrors. */
export async function callTool(
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
export async function fastToolCall(
  scope: Scope,
  request: Request,
  message: unknown,
  takes: { json: boolean; stream: boolean },
): Promise<Response | null> {
  const version = request.headers.get(PROTOCOL_HEADER);
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
