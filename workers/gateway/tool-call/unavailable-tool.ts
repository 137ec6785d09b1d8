// The answer to a call of a name that is neither an indexed tool nor a plugin
// tool on a current catalog: a tool that is gone says why (its service was
// deleted, or its upstream stopped offering it), and that refusal is recorded
// against it; a name that never was one is an unknown tool.
import { toolTarget } from "../../../shared/lifecycle/target";
import { findUnavailableTool } from "../../../shared/services/catalog";
import { Recorder, runRecord, type RecordScope } from "../../../shared/adapter/records";
import { refusal, type RefusalMeta } from "../../../shared/mcp/tool-results";
import { result, type ToolCallAnswer, type ToolCallRequest } from "./call-types";
import type { GatewayEnv } from "../env";

export async function unavailableOrUnknown(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
): Promise<ToolCallAnswer> {
  const gone = await findUnavailableTool(env.DB, req.workspaceUid, req.name);
  if (!gone) return { kind: "unknown_tool" };
  const reason = gone.deletedAt !== null || gone.legacy ? "service_deleted" : "tool_removed";
  const meta: RefusalMeta = {
    code: "tool_unavailable",
    reason,
    message:
      reason === "service_deleted"
        ? `Tool ${req.name} belongs to a deleted service.`
        : `Tool ${req.name} is no longer offered by its upstream.`,
  };
  const scope: RecordScope = {
    workspaceUid: req.workspaceUid,
    target: toolTarget(gone.uid),
    toolUid: gone.uid,
    toolName: req.name,
    requestId: req.requestId,
    payloadCapture: false,
    mode: req.mode,
  };
  const recorder = new Recorder(scope);
  recorder.record(
    runRecord(scope, {
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: meta.code,
      revisionId: null,
      details: { reason, message: meta.message },
    }),
  );
  recorder.flush(ctx, env);
  return result(refusal(meta));
}
