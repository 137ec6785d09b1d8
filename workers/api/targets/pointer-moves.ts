// Moving a lifecycle target's deploy pointers: the WorkspaceObject moves them
// (it owns the deployed-code allowance), every move is kept in the pointer
// history, and a plugin's move changes what the tool-call path runs.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import type { Context } from "hono";
import { ProblemException } from "../../../shared/http/problem";
import type { DeployChannel, Pointer } from "../../../shared/lifecycle/pointers";
import type { Target } from "../../../shared/lifecycle/target";
import { recordPointerEvent } from "../stores/pointer-events";
import type { ApiEnv } from "../types";

/** Appends a pointer move to the target's pointer history, as the caller's. */
export async function pointerMoved(
  c: Context<ApiEnv>,
  t: { workspaceUid: string; target: Target },
  event: {
    channel: DeployChannel;
    action: "deploy" | "rollback" | "drop";
    revisionId: string | null;
    previous: Pointer | null;
  },
) {
  await recordPointerEvent(c.var.db, {
    workspaceUid: t.workspaceUid,
    target: t.target,
    channel: event.channel,
    action: event.action,
    revisionId: event.revisionId,
    previousRevisionId: event.previous?.revisionId ?? null,
    actor: c.get("principal").actor,
    at: new Date().toISOString(),
  });
}

/**
 * Points `channel` at a revision (deploy or rollback): the WorkspaceObject moves
 * the pointer, refusing it past the deployed-code allowance; then the move goes
 * into the pointer history, and a plugin's move bumps the catalog version.
 */
export async function movePointer(
  c: Context<ApiEnv>,
  t: { workspaceUid: string; target: Target },
  channel: DeployChannel,
  revision: { id: string; compiledBytes: number; generation: number; codeHash: string },
  action: "deploy" | "rollback",
): Promise<void> {
  const moved = await workspaceObject(c.env, t.workspaceUid).setPointer(
    t.target,
    channel,
    revision.id,
    revision.compiledBytes,
    Date.now(),
    revision.generation,
    revision.codeHash,
  );
  if (moved.kind === "reset") {
    throw new ProblemException({
      code: "conflict",
      detail: `The hook was reset while this ${action} ran; nothing was ${action === "deploy" ? "deployed" : "rolled back"}. Save, test and deploy again.`,
      extensions: { generation: moved.generation },
    });
  }
  if (moved.kind === "allowance_exceeded") {
    throw new ProblemException({
      code: "allowance_exceeded",
      detail: `Active and shadow code of the workspace would exceed ${moved.refusal.limit} bytes; drop a shadow or reset a hook.`,
      extensions: { ...moved.refusal },
    });
  }
  await pointerMoved(c, t, { channel, action, revisionId: revision.id, previous: moved.previous });
}
