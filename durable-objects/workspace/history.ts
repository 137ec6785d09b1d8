// The D1 side of the object's work: it appends versions and, when it
// (re)starts, rebuilds heads from what D1 holds (`hook_versions` is the
// authority for draft history).
import { sql } from "drizzle-orm";
import { database } from "../../shared/db/client";
import { hookVersions } from "../../shared/db/schema-hooks";
import { newId } from "../../shared/ids";
import type { Channel, PreparedDraft, VersionRow } from "./rpc";

export interface NewVersion {
  workspaceUid: string;
  target: string;
  generation: number;
  number: number;
  draft: PreparedDraft;
  actor: string;
  keyId: string;
  channel: Channel;
  note: string | null;
  restoredFrom: number | null;
  createdAt: string;
}

/**
 * Appends a version. Returns null when (workspace, target, generation, number)
 * already exists: the UNIQUE index refuses a second version with the same number.
 */
export async function insertVersion(db: D1Database, v: NewVersion): Promise<VersionRow | null> {
  const row = await database(db)
    .insert(hookVersions)
    .values({
      id: newId("hv"),
      workspaceUid: v.workspaceUid,
      target: v.target,
      generation: v.generation,
      number: v.number,
      source: v.draft.source,
      config: v.draft.configJson,
      formatted: v.draft.formatted,
      bytes: v.draft.bytes,
      contentHash: v.draft.contentHash,
      actor: v.actor,
      keyId: v.keyId,
      channel: v.channel,
      note: v.note,
      restoredFrom: v.restoredFrom,
      createdAt: v.createdAt,
    })
    .onConflictDoNothing()
    .returning()
    .get();
  return row ?? null;
}

/** Per target and generation: the newest version's number and content hash, and the bytes of all its versions. */
export interface StoredHead {
  target: string;
  generation: number;
  version: number;
  contentHash: string;
  bytes: number;
}

/**
 * What D1 says about every target of a workspace; the WorkspaceObject rebuilds
 * its heads and history usage from this when it (re)starts.
 */
export async function storedHeads(
  db: D1Database,
  workspaceUid: string,
  target?: string,
): Promise<StoredHead[]> {
  const targetFilter = target === undefined ? sql`` : sql` and target = ${target}`;
  const result = await database(db).all<{
    target: string;
    generation: number;
    version: number;
    content_hash: string;
    bytes: number;
  }>(sql`
    select v.target, v.generation, v.number as version, v.content_hash, t.bytes
    from hook_versions v
    join (
      select target, generation, max(number) as top, sum(bytes) as bytes
      from hook_versions
      where workspace_uid = ${workspaceUid}${targetFilter}
      group by target, generation
    ) t on v.target = t.target and v.generation = t.generation and v.number = t.top
    where v.workspace_uid = ${workspaceUid}`);
  return result.map((r) => ({
    target: r.target,
    generation: r.generation,
    version: r.version,
    contentHash: r.content_hash,
    bytes: r.bytes,
  }));
}
