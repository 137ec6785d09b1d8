// Risk approvals of plugin tools (plugin-tool-call.ts). Like an indexed tool's
// (approved-call.ts), an approval binds a revision and the exact call: here the
// plugin's active revision and the call plugins' tool.execute.before left.
// Spending it (consumeApproval) is the caller's, after its recheck.
import { callHash, checkApprovalUse, createApproval, getApproval } from "../../../shared/approvals";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import type { ToolCallRequest } from "./call-types";
import type { RefusalMeta } from "../../../shared/mcp/tool-results";
import { err, ok, type Result } from "../../../shared/result";

/** What approvals of a plugin tool bind as its tool: plugin tools have ids, not indexed tool uids. */
export const pluginToolUid = (id: string): string => `plugin-tool:${id}`;

/** Asks for an approval of `callArgs` under the plugin's revision; the refusal that carries its id. */
export async function requestPluginToolApproval(
  db: D1Database,
  req: ToolCallRequest,
  tool: { id: string; revisionId: string },
  reason: string,
  callArgs: JsonObject,
): Promise<RefusalMeta> {
  const approval = await createApproval(db, {
    workspaceUid: req.workspaceUid,
    toolUid: pluginToolUid(tool.id),
    toolName: tool.id,
    revisionId: tool.revisionId,
    source: "risk",
    reason,
    arguments: callArgs,
    publicArguments: req.arguments,
    keyId: req.caller.keyId,
    actor: req.caller.actor,
    requestId: req.requestId,
    now: Date.now(),
  });
  return { code: "approval_required", message: reason, approvalId: approval.id };
}

/**
 * The stored call of the request's approval when this key may use it for this
 * exact public call under the plugin's current revision, else why not.
 */
export async function approvedPluginToolCall(
  db: D1Database,
  req: ToolCallRequest,
  tool: { id: string; revisionId: string },
): Promise<Result<{ id: string; args: JsonObject }, RefusalMeta>> {
  const toolUid = pluginToolUid(tool.id);
  const row = req.approvalId === null ? undefined : await getApproval(db, req.workspaceUid, req.approvalId);
  const check = checkApprovalUse(row, {
    toolUid,
    keyId: req.caller.keyId,
    publicHash: await callHash(toolUid, req.arguments),
    now: Date.now(),
  });
  if (!check.ok) return err({ code: check.error.code, message: check.error.message });
  const approval = check.value;
  const stored: unknown = JSON.parse(approval.arguments);
  if (!isJsonObject(stored) || (await callHash(toolUid, stored)) !== approval.callHash) {
    return err({ code: "approval_mismatch", message: "The stored call does not match its approval." });
  }
  if (approval.revisionId !== tool.revisionId) {
    return err({
      code: "revision_changed",
      reason: "approval_bound_revision",
      message:
        "The approval was given under a plugin revision that is no longer active; request a new approval.",
    });
  }
  return ok({ id: approval.id, args: stored });
}
