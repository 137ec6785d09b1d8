// D1 side of the lifecycle: `hook_versions` is the authority for draft history.
// Reads take the target's current generation from the WorkspaceObject, so rows a
// reset left behind (before their deletion finished) are never shown.
import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { hookResetEvents, hookVersions } from "../../../shared/db/schema-hooks";
import { newId } from "../../../shared/ids";
import type { JsonObject } from "../../../shared/json";
import type { Channel, VersionRow } from "../../../durable-objects/workspace/rpc";
import { parseConfig } from "./draft";

/** One version's metadata (history lists leave out source and config). */
export interface VersionMeta {
  version: number;
  actor: string;
  channel: Channel;
  note: string | null;
  createdAt: string;
  bytes: number;
  formatted: boolean;
  restoredFrom: number | null;
}

export interface VersionView extends VersionMeta {
  source: string;
  config: JsonObject;
}

export const versionMeta = (row: VersionRow): VersionMeta => ({
  version: row.number,
  actor: row.actor,
  channel: row.channel,
  note: row.note,
  createdAt: row.createdAt,
  bytes: row.bytes,
  formatted: row.formatted,
  restoredFrom: row.restoredFrom,
});

export const versionView = (row: VersionRow): VersionView => ({
  ...versionMeta(row),
  source: row.source,
  config: parseConfig(row.config),
});

const inTarget = (workspaceUid: string, target: string, generation: number) =>
  and(
    eq(hookVersions.workspaceUid, workspaceUid),
    eq(hookVersions.target, target),
    eq(hookVersions.generation, generation),
  );

export async function getVersion(
  db: Database,
  workspaceUid: string,
  target: string,
  generation: number,
  number: number,
): Promise<VersionRow | null> {
  const row = await db
    .select()
    .from(hookVersions)
    .where(and(inTarget(workspaceUid, target, generation), eq(hookVersions.number, number)))
    .get();
  return row ?? null;
}

/** Newest first, below version `before` when given. */
export async function listVersions(
  db: Database,
  q: { workspaceUid: string; target: string; generation: number; limit: number; before?: number },
): Promise<VersionMeta[]> {
  const rows = await db
    .select({
      number: hookVersions.number,
      actor: hookVersions.actor,
      channel: hookVersions.channel,
      note: hookVersions.note,
      createdAt: hookVersions.createdAt,
      bytes: hookVersions.bytes,
      formatted: hookVersions.formatted,
      restoredFrom: hookVersions.restoredFrom,
    })
    .from(hookVersions)
    .where(
      and(
        inTarget(q.workspaceUid, q.target, q.generation),
        q.before === undefined ? undefined : lt(hookVersions.number, q.before),
      ),
    )
    .orderBy(desc(hookVersions.number))
    .limit(q.limit)
    .all();
  return rows.map(({ number, ...rest }) => ({ version: number, ...rest }));
}

/** Oldest first, `after` exclusive; pages the export without holding the whole history in memory. */
export async function versionsAfter(
  db: Database,
  q: { workspaceUid: string; target: string; generation: number; after: number; limit: number },
): Promise<VersionRow[]> {
  return db
    .select()
    .from(hookVersions)
    .where(and(inTarget(q.workspaceUid, q.target, q.generation), gt(hookVersions.number, q.after)))
    .orderBy(asc(hookVersions.number))
    .limit(q.limit)
    .all();
}

/**
 * Deletes a target's versions of every generation below `belowGeneration` (the
 * generation `resetTarget` returned), so a save made after the reset survives a
 * retried delete. Returns the number of rows removed.
 */
export async function deleteTargetVersions(
  db: Database,
  workspaceUid: string,
  target: string,
  belowGeneration: number,
): Promise<number> {
  const removed = await db
    .delete(hookVersions)
    .where(
      and(
        eq(hookVersions.workspaceUid, workspaceUid),
        eq(hookVersions.target, target),
        lt(hookVersions.generation, belowGeneration),
      ),
    )
    .run();
  return removed.meta.changes;
}

export async function recordResetEvent(
  db: Database,
  event: {
    workspaceUid: string;
    target: string;
    actor: string;
    at: string;
    versionsRemoved: number;
    revisionsRemoved: number;
  },
): Promise<typeof hookResetEvents.$inferSelect> {
  const [row] = await db
    .insert(hookResetEvents)
    .values({ id: newId("reset"), ...event })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

/** Whether a target has any stored history (any generation). */
export async function hasHistory(db: Database, workspaceUid: string, target: string): Promise<boolean> {
  const row = await db
    .select({ id: hookVersions.id })
    .from(hookVersions)
    .where(and(eq(hookVersions.workspaceUid, workspaceUid), eq(hookVersions.target, target)))
    .limit(1)
    .get();
  return row !== undefined;
}
