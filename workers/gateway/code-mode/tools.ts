// The three tools Code Mode offers the model instead of the workspace's own:
// two for Code discovery and `execute`. Their limits are written into the
// descriptions, so the model reads them where it decides what to write.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { LIMITS } from "../../../shared/limits";

export const SEARCH_TOOLS = "search_tools";
export const DESCRIBE_TOOLS = "describe_tools";
export const EXECUTE = "execute";

/** Most tools one `search_tools` answer lists. */
export const SEARCH_RESULTS_MAX = 50;
/** Most tools one `describe_tools` call may name. */
export const DESCRIBE_NAMES_MAX = 50;

const kib = (bytes: number) => `${bytes / 1024} KiB`;

export const CODE_MODE_TOOLS: Tool[] = [
  {
    name: SEARCH_TOOLS,
    description:
      "Find the workspace's tools you can call from `execute`: tools whose name or description contains the words of `query` (an empty query lists them all), best match first, with a one-line description each. Then ask `describe_tools` for their TypeScript declarations.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words to look for in tool names and descriptions." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: SEARCH_RESULTS_MAX,
          description: "Most tools to list.",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        tools: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, description: { type: "string" } },
            required: ["name", "description"],
          },
        },
      },
      required: ["tools"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: DESCRIBE_TOOLS,
    description:
      "TypeScript declarations of the named tools as `execute` sees them: `declare const tools` with one async method per tool, its argument and result types, and `ToolError`. Names you may not call are listed in `missing`.",
    inputSchema: {
      type: "object",
      properties: {
        names: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: DESCRIBE_NAMES_MAX,
          description: "Tool names, as search_tools lists them.",
        },
      },
      required: ["names"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        declarations: { type: "string" },
        missing: { type: "array", items: { type: "string" } },
      },
      required: ["declarations", "missing"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: EXECUTE,
    description: [
      "Runs `code`, the body of an async TypeScript or JavaScript function (types are erased, not checked), in a sandbox with no network and no other capability.",
      "Call tools with `await tools.<name>(args)`: each call is one gateway tool call with the workspace's hooks and access rules, and resolves to the tool's structuredContent (or `{ content }` when it declares no output schema).",
      "A refused or failed call throws a `ToolError` with `code`, `reason` and `message`, which the code may catch. `console.log` and friends are kept as `logs`.",
      "A call that needs a person's approval throws `ApprovalRequired` and ends the execution with its `approvalId`; once it is approved, the client repeats the same `execute` and that call goes through once.",
      "`return` a JSON value: the answer is `{ result, logs }`.",
      `Bounds: ${LIMITS.codeModeCallsPerExecution} tool calls, ${LIMITS.codeModeConcurrentCalls} at once (Promise.all works), ${LIMITS.codeModeWallTimeMs / 1000} s awaiting them, ${kib(LIMITS.codeModeCodeBytes)} of code, ${kib(LIMITS.codeModeOutputBytes)} of result.`,
    ].join(" "),
    inputSchema: {
      type: "object",
      properties: {
        code: { type: "string", description: "The body of an async function; `return` the result." },
      },
      required: ["code"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        result: { description: "What the code returned (null for nothing)." },
        logs: {
          type: "array",
          items: {
            type: "object",
            properties: { level: { type: "string" }, message: { type: "string" }, data: {} },
            required: ["level", "message"],
          },
        },
      },
      required: ["result", "logs"],
    },
  },
];
