// The one upstream `tools/call` of a dispatched call, with the official SDK
// client. The bearer token comes from the workspace secret the service names;
// it is added here, after every hook has run, and never reaches a hook.
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../json";
import { connectUpstream } from "../services/upstream";

/** Bound on one upstream call (connect + tools/call). */
export const UPSTREAM_CALL_TIMEOUT_MS = 60_000;

export type DispatchOutcome =
  | { kind: "result"; result: CallToolResult }
  /** A JSON-RPC error from the upstream: returned to the client as the upstream's error. */
  | { kind: "rpc_error"; code: number; message: string; data?: unknown }
  /** The upstream could not be reached or answered unusably. */
  | { kind: "unavailable"; message: string };

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function dispatchToolCall(
  url: string,
  upstreamName: string,
  args: JsonObject,
  bearerToken: string | null,
): Promise<DispatchOutcome> {
  let client;
  try {
    client = await connectUpstream(url, { bearerToken });
  } catch (error) {
    return { kind: "unavailable", message: `The upstream could not be reached: ${describe(error)}` };
  }
  try {
    const result = await client.callTool({ name: upstreamName, arguments: args }, undefined, {
      timeout: UPSTREAM_CALL_TIMEOUT_MS,
    });
    // The SDK's type also admits the pre-2024 `{ toolResult }` shape; an upstream answering that is unusable.
    if (!("content" in result) || !Array.isArray(result.content)) {
      return { kind: "unavailable", message: "The upstream answered tools/call without content." };
    }
    const answer: CallToolResult = { ...result, content: result.content };
    return { kind: "result", result: answer };
  } catch (error) {
    if (error instanceof McpError) {
      // The SDK's own request timeout is an McpError too: not the upstream's word.
      if (error.code === (ErrorCode.RequestTimeout as number)) {
        return { kind: "unavailable", message: "The upstream did not answer in time." };
      }
      const message = error.message.replace(/^MCP error -?\d+: /, "");
      return { kind: "rpc_error", code: error.code, message, data: error.data };
    }
    return { kind: "unavailable", message: `The upstream answered unusably: ${describe(error)}` };
  } finally {
    await client.close().catch(() => undefined);
  }
}
