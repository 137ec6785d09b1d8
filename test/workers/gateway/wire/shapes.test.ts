// The hot path's hand checks of MCP messages (workers/gateway/wire/shapes.ts):
// whatever they accept, the SDK's own schema accepts with the same meaning, and
// anything they do not recognise is left to that schema (null).
import { CallToolRequestSchema, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { plainToolCall, plainToolResult } from "../../../../workers/gateway/wire/shapes";

const call = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7 as string | number | null,
  method: "tools/call",
  params,
  ...extra,
});

describe("plainToolCall", () => {
  it.each([
    ["name only", call({ name: "search" })],
    ["arguments", call({ name: "search", arguments: { q: "x", n: 2, nested: { a: [1] } } })],
    ["_meta", call({ name: "search", arguments: {}, _meta: { "rayrun/approvalId": "apr_1" } })],
    ["a string id", call({ name: "search" }, { id: "req-1" })],
  ])("accepts a plain call (%s) exactly as the SDK schema reads it", (_label, message) => {
    const plain = plainToolCall(message);
    expect(plain).not.toBeNull();
    expect(plain?.id).toBe(message.id);
    expect(plain?.request).toEqual(CallToolRequestSchema.parse(message));
  });

  it.each([
    ["another method", call({ name: "search" }, { method: "tools/list" })],
    ["another jsonrpc version", call({ name: "search" }, { jsonrpc: "1.0" })],
    ["a fractional id", call({ name: "search" }, { id: 1.5 })],
    ["a null id", call({ name: "search" }, { id: null })],
    ["a missing name", call({ arguments: {} })],
    ["array arguments", call({ name: "search", arguments: [1, 2] })],
    ["null arguments", call({ name: "search", arguments: null })],
    ["a non-object _meta", call({ name: "search", _meta: "x" })],
    ["params the fast path would drop", call({ name: "search", task: { ttl: 1000 } })],
    ["no params", { jsonrpc: "2.0", id: 1, method: "tools/call" }],
    ["a batch", [call({ name: "search" })]],
  ])("leaves %s to the SDK", (_label, message) => {
    expect(plainToolCall(message)).toBeNull();
  });
});

describe("plainToolResult", () => {
  it.each([
    [
      "text blocks",
      {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "" },
        ],
      },
    ],
    ["an error", { content: [{ type: "text", text: "no" }], isError: true }],
    ["structured content", { content: [], structuredContent: { items: [{ title: "t" }] } }],
  ])("accepts %s exactly as the SDK schema reads them", (_label, result) => {
    expect(plainToolResult(result)).toEqual(CallToolResultSchema.parse(result));
  });

  it.each([
    ["no content", { structuredContent: {} }],
    ["an image block", { content: [{ type: "image", data: "AA==", mimeType: "image/png" }] }],
    [
      "a text block with annotations",
      { content: [{ type: "text", text: "a", annotations: { priority: 1 } }] },
    ],
    ["a text block without text", { content: [{ type: "text" }] }],
    ["a non-boolean isError", { content: [], isError: "yes" }],
    ["array structured content", { content: [], structuredContent: [1] }],
    ["a result with _meta", { content: [], _meta: { x: 1 } }],
    ["the pre-2024 shape", { toolResult: { a: 1 } }],
  ])("leaves %s to the SDK", (_label, result) => {
    expect(plainToolResult(result)).toBeNull();
  });
});
