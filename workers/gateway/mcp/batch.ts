// JSON-RPC batches on `POST /mcp/{ws}`. MCP 2025-06-18 dropped batching, so a
// client that negotiated it (or a later version) gets its batch refused; for
// older clients a batch may carry at most LIMITS.mcpBatchToolCalls tool calls,
// so one HTTP request can only cause a bounded amount of hook and upstream
// work. Request ids must be unique within a batch: the transport answers by
// id, so a duplicate would run twice and be answered once.
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { rpcRefusal } from "../wire/rpc-error";

/** The first protocol version without JSON-RPC batches (versions are ISO dates, so they sort as strings). */
export const FIRST_VERSION_WITHOUT_BATCHES = "2025-06-18";

/** The protocol version a batch speaks: its `initialize`'s, else the header's, else the spec's default. */
function batchVersion(messages: readonly unknown[], header: string | null): string {
  for (const message of messages) {
    if (isJsonObject(message) && message.method === "initialize" && isJsonObject(message.params)) {
      const version = message.params.protocolVersion;
      if (typeof version === "string") return version;
    }
  }
  return header ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

const invalidRequest = (message: string): Response => rpcRefusal(400, ErrorCode.InvalidRequest, message);

/** A refusal for a batch the gateway does not run, or null to go on (a single message is never refused here). */
export function refuseBatch(message: unknown, protocolHeader: string | null): Response | null {
  if (!Array.isArray(message)) return null;
  const version = batchVersion(message, protocolHeader);
  if (version >= FIRST_VERSION_WITHOUT_BATCHES) {
    return invalidRequest(`JSON-RPC batches are not part of MCP ${version}: send one message per request.`);
  }
  let toolCalls = 0;
  const ids = new Set<unknown>();
  for (const entry of message) {
    if (!isJsonObject(entry)) continue;
    if (entry.method === "tools/call") toolCalls++;
    if (entry.method !== undefined && entry.id !== undefined) {
      if (ids.has(entry.id)) {
        return invalidRequest(
          `Request id ${JSON.stringify(entry.id)} appears twice in the batch: ids must be unique.`,
        );
      }
      ids.add(entry.id);
    }
  }
  if (toolCalls > LIMITS.mcpBatchToolCalls) {
    return invalidRequest(
      `A batch may carry at most ${LIMITS.mcpBatchToolCalls} tools/call requests; this one has ${toolCalls}.`,
    );
  }
  return null;
}
