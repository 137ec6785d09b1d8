// Deployment revisions: immutable compiled code in R2 (content-addressed and
// scoped per workspace and target, so a reset deletes only its own objects),
// metadata in D1. Both Workers read them; only the api Worker creates them.
import { and, desc, eq, lt } from "drizzle-orm";
import { database } from "../db/client";
import { hookRevisions } from "../db/schema-deploy";
import { newId } from "../ids";
import type { JsonObject } from "../json";
import type { AdapterStage } from "../sandbox/types";

/** A plugin tool as cached with its revision (`tool({})` at deploy time, `execute` dropped). */
export interface PluginToolDef {
  id: string;
  description: string | null;
  parameters: JsonObject;
}

export type RevisionRow = typeof hookRevisions.$inferSelect;

export interface RevisionView {
  id: string;
  version: number;
  codeHash: string;
  compiledBytes: number;
  publicContract: JsonObject | null;
  stages: AdapterStage[];
  config: JsonObject;
  definitionHash: string;
  actor: string;
  createdAt: string;
}

/** A workspace file's revision: no contract, stages or upstream definition; the names it exports. */
export interface FileRevisionView {
  id: string;
  version: number;
  codeHash: string;
  compiledBytes: number;
  /** A lib file's exported functions, or a plugin's hook names. */
  exports: string[];
  config: JsonObject;
  actor: string;
  createdAt: string;
}

export const revisionExports = (row: RevisionRow): string[] =>
  row.exports === null ? [] : (JSON.parse(row.exports) as string[]);

/** A plugin revision's cached tool definitions ([] when it has none). */
export const revisionTools = (row: RevisionRow): PluginToolDef[] =>
  row.tools === null ? [] : (JSON.parse(row.tools) as PluginToolDef[]);

export const fileRevisionView = (row: RevisionRow): FileRevisionView => ({
  id: row.id,
  version: row.version,
  codeHash: row.codeHash,
  compiledBytes: row.compiledBytes,
  exports: revisionExports(row),
  config: JSON.parse(row.config) as JsonObject,
  actor: row.actor,
  createdAt: row.createdAt,
});

export const revisionView = (row: RevisionRow): RevisionView => ({
  id: row.id,
  version: row.version,
  codeHash: row.codeHash,
  compiledBytes: row.compiledBytes,
  publicContract: row.publicContract === null ? null : (JSON.parse(row.publicContract) as JsonObject),
  stages: JSON.parse(row.stages) as AdapterStage[],
  config: JSON.parse(row.config) as JsonObject,
  definitionHash: row.definitionHash,
  actor: row.actor,
  createdAt: row.createdAt,
});

/** R2 prefix of everything a target owns. */
export const targetPrefix = (workspaceUid: string, target: string): string =>
  `ws/${workspaceUid}/hooks/${encodeURIComponent(target)}/`;

export const codeKey = (workspaceUid: string, target: string, codeHash: string): string =>
  `${targetPrefix(workspaceUid, target)}code/${codeHash}.js`;

const ofTarget = (workspaceUid: string, target: string) =>
  and(eq(hookRevisions.workspaceUid, workspaceUid), eq(hookRevisions.target, target));

export interface NewRevision {
  workspaceUid: string;
  target: string;
  generation: number;
  version: number;
  code: string;
  codeHash: string;
  publicContract: JsonObject | null;
  stages: AdapterStage[];
  /** Workspace files: exported functions or plugin hooks; null for tool adapters. */
  exports: string[] | null;
  /** Plugins with a `tool` hook: the definitions read at deploy time; null otherwise. */
  tools?: PluginToolDef[] | null;
  config: JsonObject;
  /** The tool's accepted upstream definition; "" for workspace files, which have none. */
  definitionHash: string;
  actor: string;
  keyId: string;
}

/**
 * The revision for this compile: an existing one with the same version, code and
 * upstream definition is reused; otherwise the code goes to R2 first (an orphan
 * object is harmless, a row without its object is not) and then the row to D1.
 */
export async function createOrReuseRevision(
  env: { DB: D1Database; CODE: R2Bucket },
  r: NewRevision,
): Promise<{ revision: RevisionRow; reused: boolean }> {
  const db = database(env.DB);
  const identity = and(
    ofTarget(r.workspaceUid, r.target),
    eq(hookRevisions.generation, r.generation),
    eq(hookRevisions.version, r.version),
    eq(hookRevisions.codeHash, r.codeHash),
    eq(hookRevisions.definitionHash, r.definitionHash),
  );
  const existing = await db.select().from(hookRevisions).where(identity).get();
  if (existing) return { revision: existing, reused: true };

  const key = codeKey(r.workspaceUid, r.target, r.codeHash);
  await env.CODE.put(key, r.code, {
    httpMetadata: { contentType: "text/javascript; charset=utf-8" },
    customMetadata: { sha256: r.codeHash },
  });
  const inserted = await db
    .insert(hookRevisions)
    .values({
      id: newId("rev"),
      workspaceUid: r.workspaceUid,
      target: r.target,
      generation: r.generation,
      version: r.version,
      codeHash: r.codeHash,
      codeKey: key,
      compiledBytes: new TextEncoder().encode(r.code).length,
      publicContract: r.publicContract === null ? null : JSON.stringify(r.publicContract),
      stages: JSON.stringify(r.stages),
      exports: r.exports === null ? null : JSON.stringify(r.exports),
      tools: r.tools === undefined || r.tools === null ? null : JSON.stringify(r.tools),
      config: JSON.stringify(r.config),
      definitionHash: r.definitionHash,
      actor: r.actor,
      keyId: r.keyId,
      createdAt: new Date().toISOString(),
    })
    .onConflictDoNothing()
    .returning()
    .get();
  if (inserted) return { revision: inserted, reused: false };
  // A concurrent deploy of the same compile won the insert: use its row.
  const winner = await db.select().from(hookRevisions).where(identity).get();
  if (!winner) throw new Error("revision vanished after a conflicting insert");
  return { revision: winner, reused: true };
}

export function getRevision(db: D1Database, workspaceUid: string, target: string, id: string) {
  return database(db)
    .select()
    .from(hookRevisions)
    .where(and(ofTarget(workspaceUid, target), eq(hookRevisions.id, id)))
    .get();
}

/** Up to `limit` revisions of one generation, newest first, older than `after` when given. */
export function listRevisions(
  db: D1Database,
  workspaceUid: string,
  target: string,
  generation: number,
  page: { limit: number; after?: string | undefined },
) {
  return database(db)
    .select()
    .from(hookRevisions)
    .where(
      and(
        ofTarget(workspaceUid, target),
        eq(hookRevisions.generation, generation),
        page.after ? lt(hookRevisions.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(hookRevisions.id))
    .limit(page.limit)
    .all();
}

/** Deletes every revision row and R2 object of a target; returns how many revisions were removed. */
export async function deleteTargetRevisions(
  env: { DB: D1Database; CODE: R2Bucket },
  workspaceUid: string,
  target: string,
): Promise<number> {
  const prefix = targetPrefix(workspaceUid, target);
  let cursor: string | undefined;
  do {
    const listed = await env.CODE.list({ prefix, ...(cursor ? { cursor } : {}) });
    if (listed.objects.length > 0) await env.CODE.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  const removed = await database(env.DB)
    .delete(hookRevisions)
    .where(ofTarget(workspaceUid, target))
    .returning({ id: hookRevisions.id })
    .all();
  return removed.length;
}
