// What Code Mode's tools answer: a result with JSON text and structured
// content, or a tool error result with `_meta["rayrun/error"]` (never a
// JSON-RPC error for what the model's code did).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../../../shared/json";
import { refusal, type RefusalMeta } from "../../../shared/mcp/tool-results";
import type { LogEntry } from "../../../shared/sandbox";

/** The stable codes an `execute` ends with when it does not return. */
export type CodeModeCode =
  | "code_mode_code_too_large"
  | "code_mode_call_limit"
  | "code_mode_concurrency_limit"
  | "code_mode_time_limit"
  | "code_mode_output_too_large"
  | "code_mode_failed"
  /** A call the code made needs approval: `approvalId` names it. */
  | "approval_required";

/**
 * An execution ended by an approval: a call that needs one, or the approval of
 * a repeated execution refused (`code` is then Direct Mode's: `approval_used`,
 * `revision_changed`, …). `tool` and `requestId` name the call that ended it,
 * when a call did (a repeat whose approval no call could use runs no code).
 */
export type ApprovalEnd = RefusalMeta & { approvalId: string; tool?: string; requestId?: string };

/** What an execution that did not return ended with. */
export type ExecutionEnd = (RefusalMeta & { code: CodeModeCode }) | ApprovalEnd;

/** Arguments of a Code Mode tool that do not fit its input schema (the code Direct Mode uses for the same). */
export const invalidArguments = (message: string): CallToolResult =>
  refusal({ code: "public_arguments_invalid", message });

/** A successful answer: the value as JSON text, and as structuredContent. */
export const structured = (value: JsonObject, text: string = JSON.stringify(value)): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: value,
});

/** An execution that ended with `meta`; its logs so far follow the message, for the model to read. */
export function executionFailed(meta: ExecutionEnd, logs: LogEntry[]): CallToolResult {
  const result = refusal(meta);
  if (logs.length > 0) result.content.push({ type: "text", text: JSON.stringify({ logs }) });
  return result;
}
