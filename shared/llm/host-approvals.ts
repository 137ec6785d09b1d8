// Approvals on a request hook's host calls. A host call its loop's policy
// marks for approval does not run: the gate stores a pending approval bound
// to the call (capability, source, arguments' hash), the hook revision and
// the key, and the request fails with `approval_required`. The client repeats
// the same request with the approval's id; the hook runs again, and the one
// call that matches the approved one runs, once. The conditional UPDATE that
// marks the approval used decides between concurrent repeats.
import { callHash, checkApprovalUse, consumeApproval, createApproval, getApproval } from "../approvals";
import { HostCallError } from "../sandbox";
import type { HostCallRequest } from "./host-policy";

/** The approval a repeated request carries, for the host call of its request hook that needed one. */
export const APPROVAL_HEADER = "x-rayrun-approval-id";
/** What an approval id looks like (`apr_` and its time-ordered tail); anything else is refused before the hook runs. */
export const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{1,100}$/;
export const APPROVAL_ID_REFUSAL = `${APPROVAL_HEADER} must be an approval id (apr_…).`;

/** What the proxy answers with `approval_required`. */
export interface HostApprovalRequest {
  id: string;
  /** `rayrun.lambda` or `rayrun.model`. */
  hostCall: string;
  /** `lambda`: the lib source; `model`: the model, when named. */
  target: string | null;
  /** SHA-256 of the canonical `{ tool, arguments }` the approval binds (see docs/request-hooks.md). */
  argumentsHash: string;
  expiresAt: string;
}

/** Why a repeat's approval could not be used (the approval codes tool calls use, and revision_changed). */
export interface HostApprovalRefusal {
  code: string;
  message: string;
}

export interface HostApprovalContext {
  db: D1Database;
  workspaceUid: string;
  keyId: string;
  actor: string;
  requestId: string;
  loop: string;
  /** The running hook's revision: an approval binds it. */
  revisionId: string | null;
  /** `x-rayrun-approval-id` of a repeated request, or null. */
  approvalId: string | null;
}

/** The approvals' `tool`: what a host call's approval is for. */
export const hostCallTool = (call: HostCallRequest): string =>
  call.name === "lambda" ? `host:lambda:${call.target ?? ""}` : "host:model";

export const APPROVAL_REQUIRED = "approval_required";

export class HostApprovalGate {
  /** The approval this run asked for (the request then fails with it). */
  required: HostApprovalRequest | null = null;
  /** Why the repeat's approval was refused (the request then fails with it). */
  refused: HostApprovalRefusal | null = null;
  /** The repeat's approval has been spent on a call of this run. */
  private spent = false;

  constructor(private readonly ctx: HostApprovalContext) {}

  /** Resolves when the call may run; otherwise throws the HostCallError the hook sees. */
  async admit(call: HostCallRequest): Promise<void> {
    const { ctx } = this;
    if (ctx.approvalId !== null && !this.spent) {
      this.spent = true;
      await this.useApproval(call, ctx.approvalId);
      return;
    }
    const now = Date.now();
    const tool = hostCallTool(call);
    const hostCall = `rayrun.${call.name}`;
    const row = await createApproval(ctx.db, {
      workspaceUid: ctx.workspaceUid,
      toolUid: tool,
      toolName: hostCall,
      revisionId: ctx.revisionId,
      source: "host_call",
      reason: `loop "${ctx.loop}" needs an approval for ${hostCall}${call.target === null ? "" : ` ${call.target}`}`,
      arguments: call.input,
      publicArguments: call.input,
      keyId: ctx.keyId,
      actor: ctx.actor,
      requestId: ctx.requestId,
      now,
    });
    // One approval per run: the first call that needs one ends the run's chances.
    this.required ??= {
      id: row.id,
      hostCall,
      target: call.target,
      argumentsHash: row.callHash,
      expiresAt: row.expiresAt,
    };
    throw new HostCallError(APPROVAL_REQUIRED, `${hostCall} needs an approval (${row.id})`);
  }

  private async useApproval(call: HostCallRequest, id: string): Promise<void> {
    const { ctx } = this;
    const refuse = (code: string, message: string): never => {
      this.refused ??= { code, message };
      throw new HostCallError(code, message);
    };
    const row = await getApproval(ctx.db, ctx.workspaceUid, id);
    const tool = hostCallTool(call);
    const check = checkApprovalUse(row?.source === "host_call" ? row : undefined, {
      toolUid: tool,
      keyId: ctx.keyId,
      publicHash: await callHash(tool, call.input),
      now: Date.now(),
    });
    if (!check.ok) return refuse(check.error.code, check.error.message);
    if (check.value.revisionId !== ctx.revisionId) {
      return refuse(
        "revision_changed",
        "The approval was given under a request hook revision that is no longer active; request a new approval.",
      );
    }
    if (!(await consumeApproval(ctx.db, ctx.workspaceUid, id, Date.now()))) {
      return refuse("approval_used", "The approval was already used for one call.");
    }
  }
}
