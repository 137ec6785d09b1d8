// One-call approvals.
// An approval binds the exact active revision and the exact transformed call;
// after an approver approves it, the key that asked may dispatch the stored
// call exactly once (a conditional UPDATE approved → used decides).
import { and, desc, eq, gt, lt, lte, or, type SQL } from "drizzle-orm";
import { database } from "../db/client";
import { approvals, type ApprovalStatus } from "../db/schema";
import { canonicalJson, sha256Hex } from "../canonical-json";
import { newId } from "../ids";
import type { Json } from "../json";
import { err, ok, type Result } from "../result";

/** How long an approval may be decided and used after it was requested. */
export const APPROVAL_TTL_MS = 60 * 60 * 1000;
/** The `_meta` key a client repeats an approved call with. */
export const APPROVAL_META_KEY = "rayrun/approvalId";

export type ApprovalRow = typeof approvals.$inferSelect;
/** Stored statuses plus `expired` (a pending or approved approval past `expiresAt`). */
export type ApprovalView = ApprovalStatus | "expired";
export const APPROVAL_VIEW_STATUSES = ["pending", "approved", "denied", "used", "expired"] as const;

/** SHA-256 of the canonical call `{ tool, arguments }`: what an approval binds. */
export const callHash = (toolUid: string, args: Json): Promise<string> =>
  sha256Hex(canonicalJson({ tool: toolUid, arguments: args }));

export const statusOf = (row: ApprovalRow, now: number): ApprovalView =>
  (row.status === "pending" || row.status === "approved") && Date.parse(row.expiresAt) <= now
    ? "expired"
    : row.status;

export interface NewApproval {
  workspaceUid: string;
  toolUid: string;
  toolName: string;
  revisionId: string | null;
  source: ApprovalRow["source"];
  reason: string;
  arguments: Json;
  publicArguments: Json;
  keyId: string;
  actor: string;
  requestId: string;
  now: number;
}

export async function createApproval(db: D1Database, a: NewApproval): Promise<ApprovalRow> {
  const [hash, publicHash] = await Promise.all([
    callHash(a.toolUid, a.arguments),
    callHash(a.toolUid, a.publicArguments),
  ]);
  const row: ApprovalRow = {
    id: newId("apr", a.now),
    workspaceUid: a.workspaceUid,
    toolUid: a.toolUid,
    toolName: a.toolName,
    revisionId: a.revisionId,
    source: a.source,
    reason: a.reason,
    arguments: JSON.stringify(a.arguments),
    callHash: hash,
    publicHash,
    keyId: a.keyId,
    actor: a.actor,
    requestId: a.requestId,
    status: "pending",
    createdAt: new Date(a.now).toISOString(),
    expiresAt: new Date(a.now + APPROVAL_TTL_MS).toISOString(),
    decidedBy: null,
    decidedAt: null,
    usedAt: null,
  };
  await database(db).insert(approvals).values(row);
  return row;
}

export function getApproval(db: D1Database, workspaceUid: string, id: string) {
  return database(db)
    .select()
    .from(approvals)
    .where(and(eq(approvals.workspaceUid, workspaceUid), eq(approvals.id, id)))
    .get();
}

export type DecideOutcome =
  | { kind: "decided"; row: ApprovalRow }
  | { kind: "not_found" }
  | { kind: "not_pending"; row: ApprovalRow; status: ApprovalView };

/** Approves or denies a pending, unexpired approval (one conditional UPDATE decides). */
export async function decideApproval(
  db: D1Database,
  workspaceUid: string,
  id: string,
  decision: "approved" | "denied",
  actor: string,
  now: number,
): Promise<DecideOutcome> {
  const at = new Date(now).toISOString();
  const row = await database(db)
    .update(approvals)
    .set({ status: decision, decidedBy: actor, decidedAt: at })
    .where(
      and(
        eq(approvals.workspaceUid, workspaceUid),
        eq(approvals.id, id),
        eq(approvals.status, "pending"),
        gt(approvals.expiresAt, at),
      ),
    )
    .returning()
    .get();
  if (row) return { kind: "decided", row };
  const existing = await getApproval(db, workspaceUid, id);
  if (!existing) return { kind: "not_found" };
  return { kind: "not_pending", row: existing, status: statusOf(existing, now) };
}

/** Marks approval `id` used when it is approved, unexpired and meets `conditions`: the row, or undefined. */
function spend(db: D1Database, workspaceUid: string, id: string, now: number, ...conditions: SQL[]) {
  const at = new Date(now).toISOString();
  return database(db)
    .update(approvals)
    .set({ status: "used", usedAt: at })
    .where(
      and(
        eq(approvals.workspaceUid, workspaceUid),
        eq(approvals.id, id),
        eq(approvals.status, "approved"),
        gt(approvals.expiresAt, at),
        ...conditions,
      ),
    )
    .returning()
    .get();
}

/** Marks an approved, unexpired approval used; false when another call used it first (or it expired). */
export async function consumeApproval(
  db: D1Database,
  workspaceUid: string,
  id: string,
  now: number,
): Promise<boolean> {
  return (await spend(db, workspaceUid, id, now)) !== undefined;
}

/**
 * Checks and spends an approval for one repeated call in a single conditional
 * UPDATE (one trip to the database's home on the hot path): approved,
 * unexpired, for this tool, this key and these public arguments. When nothing
 * was spent, the row is read to say why (a second trip, on the refusal path only).
 */
export async function claimApproval(
  db: D1Database,
  workspaceUid: string,
  id: string,
  use: { toolUid: string; keyId: string; publicHash: string; now: number },
): Promise<Result<ApprovalRow, ApprovalRefusal & { row?: ApprovalRow }>> {
  const spent = await spend(
    db,
    workspaceUid,
    id,
    use.now,
    eq(approvals.toolUid, use.toolUid),
    eq(approvals.keyId, use.keyId),
    eq(approvals.publicHash, use.publicHash),
  );
  if (spent) return ok(spent);
  const row = await getApproval(db, workspaceUid, id);
  const check = checkApprovalUse(row, use);
  // It passed the check just now, so another call spent it (or it expired) between the two reads.
  if (check.ok) return err({ code: "approval_used", message: USED_MESSAGE, row: check.value });
  return row === undefined ? check : err({ ...check.error, row });
}

const USED_MESSAGE = "The approval was already used for one call.";

/** Up to `limit` approvals by their (effective) status, newest first, older than `after` when given. */
export function listApprovals(
  db: D1Database,
  workspaceUid: string,
  status: ApprovalView,
  page: { limit: number; after?: string | undefined },
  now: number,
) {
  const at = new Date(now).toISOString();
  const byStatus =
    status === "expired"
      ? and(
          or(eq(approvals.status, "pending"), eq(approvals.status, "approved")),
          lte(approvals.expiresAt, at),
        )
      : status === "pending" || status === "approved"
        ? and(eq(approvals.status, status), gt(approvals.expiresAt, at))
        : eq(approvals.status, status);
  return database(db)
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.workspaceUid, workspaceUid),
        byStatus,
        page.after ? lt(approvals.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(approvals.id))
    .limit(page.limit)
    .all();
}

export type ApprovalUseCode =
  | "approval_not_found"
  | "approval_pending"
  | "approval_denied"
  | "approval_used"
  | "approval_expired"
  | "approval_mismatch";

/** Why a repeated call may not use an approval. */
export interface ApprovalRefusal {
  code: ApprovalUseCode;
  message: string;
}

/**
 * Whether a repeated call may use `row`: it must be approved, unexpired, for the
 * same tool, asked by the same key, with the same public arguments.
 */
export function checkApprovalUse(
  row: ApprovalRow | undefined,
  use: { toolUid: string; keyId: string; publicHash: string; now: number },
): Result<ApprovalRow, ApprovalRefusal> {
  if (!row) return err({ code: "approval_not_found", message: "No such approval in this workspace." });
  const status = statusOf(row, use.now);
  switch (status) {
    case "pending":
      return err({ code: "approval_pending", message: "The approval has not been decided yet." });
    case "denied":
      return err({ code: "approval_denied", message: "The approval was denied." });
    case "used":
      return err({ code: "approval_used", message: USED_MESSAGE });
    case "expired":
      return err({ code: "approval_expired", message: "The approval has expired." });
    case "approved":
      break;
  }
  if (row.toolUid !== use.toolUid || row.keyId !== use.keyId || row.publicHash !== use.publicHash) {
    return err({
      code: "approval_mismatch",
      message: "The approval was given for a different call; repeat the exact call it was requested for.",
    });
  }
  return ok(row);
}

export const approvalView = (row: ApprovalRow, now: number) => {
  const args: unknown = JSON.parse(row.arguments);
  return {
    id: row.id,
    status: statusOf(row, now),
    toolUid: row.toolUid,
    toolName: row.toolName,
    revisionId: row.revisionId,
    source: row.source,
    reason: row.reason,
    arguments: args,
    callHash: row.callHash,
    actor: row.actor,
    keyId: row.keyId,
    requestId: row.requestId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    usedAt: row.usedAt,
  };
};
