// Code Mode on the MCP endpoint: `/mcp/{ws}?mode=code` lists the Code Mode
// tools instead of the workspace's and answers their calls. The mode is the
// client's choice per connection (its URL), not the key's: access profiles
// decide which tools a key may call in either mode, and the same key can run
// an agent in Direct Mode and another in Code Mode.
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_META_KEY } from "../../../shared/approvals";
import { isJsonObject } from "../../../shared/json";
import { parsedJson } from "../../../shared/mcp/tool-results";
import { RpcError } from "../wire/rpc-error";
import { recordExecution } from "../tool-call/execution-record";
import { withRequestId } from "../wire/meta";
import type { Scope } from "../wire/scope";
import { describeTools, searchTools } from "./discovery";
import { execute } from "./execute";
import { DESCRIBE_TOOLS, EXECUTE, SEARCH_TOOLS } from "./tools";

export { CODE_MODE_TOOLS } from "./tools";

export type McpMode = "direct" | "code";

/** The URL's `mode` (absent: Direct Mode), or null when it names no mode. */
export function endpointMode(url: string): McpMode | null {
  // Every MCP request asks: a URL without a query is Direct Mode without parsing it.
  if (!url.includes("?")) return "direct";
  const mode = new URL(url).searchParams.get("mode");
  if (mode === null || mode === "direct") return "direct";
  return mode === "code" ? "code" : null;
}

/** A `tools/call` in Code Mode: one of its three tools, else the JSON-RPC error a client gets for an unknown tool. */
export async function callCodeModeTool(scope: Scope, request: CallToolRequest): Promise<CallToolResult> {
  const { name } = request.params;
  const given = parsedJson(request.params.arguments ?? {});
  const args = isJsonObject(given) ? given : {};
  // A repeated `execute` after an approval; as in Direct Mode, anything but a string is refused.
  const approvalId = request.params._meta?.[APPROVAL_META_KEY];
  if (approvalId !== undefined && typeof approvalId !== "string") {
    throw new RpcError(ErrorCode.InvalidParams, `_meta["${APPROVAL_META_KEY}"] must be a string.`);
  }
  const requestId = crypto.randomUUID();
  const { env, ctx, workspaceUid, caller, origin } = scope;
  let result: CallToolResult;
  try {
    if (name === SEARCH_TOOLS) result = await searchTools(scope, args);
    else if (name === DESCRIBE_TOOLS) result = await describeTools(scope, args);
    else if (name === EXECUTE) {
      const started = performance.now();
      result = await execute(
        {
          env,
          ctx,
          workspaceUid,
          caller,
          origin,
          requestId,
          ...(approvalId === undefined ? {} : { approvalId }),
        },
        args,
      );
      // The execution's own run record: the parent its calls' `<id>.n` records hang under.
      recordExecution(
        env,
        ctx,
        { workspaceUid, requestId, arguments: args, durationMs: performance.now() - started },
        result,
      );
    } else
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name} (Code Mode offers ${SEARCH_TOOLS}, ${DESCRIBE_TOOLS} and ${EXECUTE})`,
      );
  } catch (error) {
    if (error instanceof RpcError) throw error;
    console.error("code mode call failed", { requestId, error: String(error) });
    throw new RpcError(ErrorCode.InternalError, `Internal error (request ${requestId}).`);
  }
  return withRequestId(result, requestId);
}
