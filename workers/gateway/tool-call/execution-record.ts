// The run record of a Code Mode `execute` as a whole: kind `code_mode`, stage
// `execute`, mode `code`, under the execution's request id, the parent of its
// calls' ids (`<id>.1`, `<id>.2`, …), whose own records are written by the
// tool-call path. It is built from what the model got back, so it says what
// the model saw: `return` for a result, else the code the execution ended with.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readWorkspaceConfig } from "../../../shared/config";
import { isJsonObject, type Json } from "../../../shared/json";
import { deferRuns, type RunDetails, type RunOutcome, type RunRecord } from "../../../shared/logs";
import { ERROR_META_KEY, parsedJson } from "../../../shared/mcp/tool-results";
import type { LogEntry } from "../../../shared/sandbox";
import type { GatewayEnv } from "../env";

/** The record's target: an execution runs the model's code, no workspace source. */
export const EXECUTION_TARGET = "code_mode:execute";

export interface ExecutionRun {
  workspaceUid: string;
  /** The execution's request id. */
  requestId: string;
  /** `execute`'s arguments as the client sent them (`{ code }`). */
  arguments: Json;
  durationMs: number;
}

/** How an execution ended: a code_mode_* bound or failure is an error; anything else the gateway refused. */
function ending(code: string): RunOutcome {
  if (code === "approval_required") return "approval";
  return code.startsWith("code_mode_") ? "error" : "refused";
}

/** The code's logs: in structuredContent when it returned, in the text block after the message when it did not. */
function logsOf(result: CallToolResult): LogEntry[] {
  const structured = result.structuredContent;
  if (isJsonObject(structured) && Array.isArray(structured.logs))
    return structured.logs as unknown as LogEntry[];
  for (const block of result.content.slice(1)) {
    if (block.type !== "text") continue;
    try {
      const parsed = parsedJson(JSON.parse(block.text));
      if (isJsonObject(parsed) && Array.isArray(parsed.logs)) return parsed.logs as unknown as LogEntry[];
    } catch {
      // Not the logs block.
    }
  }
  return [];
}

export function executionRecord(run: ExecutionRun, result: CallToolResult): RunRecord {
  const logs = logsOf(result);
  const details: RunDetails = { arguments: run.arguments, ...(logs.length > 0 ? { logs } : {}) };
  const meta = result.isError === true ? result._meta?.[ERROR_META_KEY] : undefined;
  let outcome: RunOutcome = "return";
  let code: string | null = null;
  if (isJsonObject(meta) && typeof meta.code === "string") {
    outcome = ending(meta.code);
    code = meta.code;
    if (typeof meta.message === "string") details.message = meta.message;
    if (typeof meta.reason === "string") details.reason = meta.reason;
  } else if (result.isError === true) {
    outcome = "error";
  } else if (isJsonObject(result.structuredContent) && "result" in result.structuredContent) {
    details.result = parsedJson(result.structuredContent.result);
  }
  return {
    workspaceUid: run.workspaceUid,
    kind: "code_mode",
    target: EXECUTION_TARGET,
    toolUid: null,
    toolName: "execute",
    stage: "execute",
    channel: "active",
    outcome,
    code,
    revisionId: null,
    requestId: run.requestId,
    durationMs: run.durationMs,
    // The sandbox's fuel is not reported past `execute`; the calls' own records carry theirs.
    fuelUsed: 0,
    shadowDiffered: null,
    mode: "code",
    at: new Date().toISOString(),
    details,
  };
}

/**
 * Writes the execution's record after the response. Its details (the code,
 * its logs and result) are the workspace's to keep: an execution belongs to
 * no service, so the workspace's detail policy alone decides, as for files.
 */
export function recordExecution(
  env: Pick<GatewayEnv, "DB">,
  ctx: Pick<ExecutionContext, "waitUntil">,
  run: ExecutionRun,
  result: CallToolResult,
): void {
  deferRuns(ctx, env, [executionRecord(run, result)], async () => ({
    payloadCapture: true,
    detailPolicy: (await readWorkspaceConfig(env.DB, run.workspaceUid)).detailPolicy,
  }));
}
