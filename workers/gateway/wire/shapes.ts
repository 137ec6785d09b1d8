// Hand checks for the commonest MCP messages on the tool-call path: a plain
// `tools/call` request, a result response, and a tool result made of text
// blocks. Each accepts a strict subset of what the SDK's zod schema accepts
// and returns null for everything else, so callers fall back to the schema,
// which stays the judge of every other shape. Written by hand because zod v4
// cannot compile its parsers in workerd (no `new Function`), and its
// interpreted parse of these three messages cost ~0.8 ms of a pass-through
// call's CPU (gateway CPU profile, `npm run bench:gateway`).
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, type JsonObject } from "../../../shared/json";

const hasOnlyKeys = (value: JsonObject | Record<string, unknown>, allowed: ReadonlySet<string>): boolean =>
  Object.keys(value).every((key) => allowed.has(key));

const CALL_PARAMS = new Set(["name", "arguments", "_meta"]);

/** A `tools/call` request with only a name, arguments and `_meta`, or null. */
export function plainToolCall(message: unknown): { id: string | number; request: CallToolRequest } | null {
  if (!isJsonObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return null;
  const { id, params } = message;
  if (typeof id !== "string" && typeof id !== "number") return null;
  if (typeof id === "number" && !Number.isInteger(id)) return null;
  if (!isJsonObject(params) || typeof params.name !== "string") return null;
  if (params.arguments !== undefined && !isJsonObject(params.arguments)) return null;
  if (params._meta !== undefined && !isJsonObject(params._meta)) return null;
  if (!hasOnlyKeys(params, CALL_PARAMS)) return null;
  return { id, request: { method: "tools/call", params: params as CallToolRequest["params"] } };
}

const RESULT_KEYS = new Set(["content", "structuredContent", "isError"]);
const TEXT_KEYS = new Set(["type", "text"]);

/** A tool result of text blocks, optional structured content and `isError`, or null. */
export function plainToolResult(result: Record<string, unknown>): CallToolResult | null {
  const { content, structuredContent, isError } = result;
  if (!Array.isArray(content) || !hasOnlyKeys(result, RESULT_KEYS)) return null;
  if (structuredContent !== undefined && !isJsonObject(structuredContent)) return null;
  if (isError !== undefined && typeof isError !== "boolean") return null;
  for (const block of content) {
    if (!isJsonObject(block) || block.type !== "text" || typeof block.text !== "string") return null;
    if (!hasOnlyKeys(block, TEXT_KEYS)) return null;
  }
  return result as CallToolResult;
}
