// Approvals in Code Mode. A call from code that needs approval gets one, as in
// Direct Mode, and ends the execution with it (the code may catch the error it
// throws, but the execution still ends with the approval). The client repeats
// `execute` with `_meta["rayrun/approvalId"]`: the code runs again from the
// start, and the one call that is the approved call (the same tool with the
// same public arguments) is sent to the gateway as an approved repeat —
// handleToolCall then dispatches the stored transformed call once, under the
// revision the approval bound, or refuses as in Direct Mode. Every other call
// is an ordinary call.
import { callHash, checkApprovalUse, getApproval } from "../../../shared/approvals";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { ERROR_META_KEY, type RefusalMeta } from "../../../shared/mcp/tool-results";
import type { ToolCallAnswer } from "../tool-call/call-types";
import type { Caller, GatewayEnv } from "../env";
import type { ApprovalEnd } from "./results";
import { err, ok, type Result } from "../../../shared/result";

/** The approval a repeated execution carries: what identifies the call it was given for. */
export interface RepeatApproval {
  id: string;
  toolName: string;
  toolUid: string;
  publicHash: string;
}

/**
 * The approval a repeated `execute` names, or why it cannot be used by any
 * call (unknown, pending, denied, used, expired, another key's): then nothing
 * runs, as a Direct Mode repeat never reaches its hooks. Whether it is still
 * usable when the call comes, and under the same revision, the call decides.
 */
export async function repeatApproval(
  env: GatewayEnv,
  workspaceUid: string,
  caller: Caller,
  approvalId: string,
): Promise<Result<RepeatApproval, RefusalMeta>> {
  const row = await getApproval(env.DB, workspaceUid, approvalId);
  // Tool and arguments are checked when the code makes the call: only the approval itself here.
  const check = checkApprovalUse(row, {
    toolUid: row?.toolUid ?? "",
    keyId: caller.keyId,
    publicHash: row?.publicHash ?? "",
    now: Date.now(),
  });
  if (!check.ok) return err({ code: check.error.code, message: check.error.message });
  const { id, toolName, toolUid, publicHash } = check.value;
  return ok({ id, toolName, toolUid, publicHash });
}

/** The approval id this call carries: the execution's, when the call is the approved one. */
export async function approvalFor(
  approval: RepeatApproval | null,
  name: string,
  args: JsonObject,
): Promise<string | null> {
  if (approval === null || name !== approval.toolName) return null;
  return (await callHash(approval.toolUid, args)) === approval.publicHash ? approval.id : null;
}

/** The hook's reason as a sentence, for the model to read. */
const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * How the call's answer ends the execution, if it does: a call that needs
 * approval ends it with that approval; the approved call, when the gateway
 * refuses it (used, revision changed, …), ends it with that refusal.
 */
export function approvalEnd(
  answer: ToolCallAnswer,
  call: { name: string; requestId: string; approvalId: string | null },
): ApprovalEnd | null {
  if (answer.kind !== "result" || answer.result.isError !== true) return null;
  const meta = answer.result._meta?.[ERROR_META_KEY];
  if (!isJsonObject(meta) || typeof meta.code !== "string" || typeof meta.message !== "string") return null;
  const where = { tool: call.name, requestId: call.requestId };
  if (meta.code === "approval_required" && typeof meta.approvalId === "string") {
    return {
      code: "approval_required",
      message: `tools.${call.name} needs approval (${meta.approvalId}): ${sentence(meta.message)} Once it is approved, repeat this execute with _meta["rayrun/approvalId"] set to its id.`,
      approvalId: meta.approvalId,
      ...where,
    };
  }
  if (call.approvalId === null) return null;
  return {
    code: meta.code,
    ...(typeof meta.reason === "string" ? { reason: meta.reason } : {}),
    message: meta.message,
    approvalId: call.approvalId,
    ...where,
  };
}
