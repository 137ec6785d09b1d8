// Deployment revisions as the gateway runs them, cached in the isolate by
// revision id. Revisions are immutable (their code is content-addressed in R2),
// so an entry never goes stale; rows and code come through the isolate's
// revision store (shared/deploy/revision-store.ts), which bounds them.
import { boundedCache } from "../../../shared/cache";
import { revisionView } from "../../../shared/deploy/revisions";
import { clearRevisionStore, revisionCode, revisionRow } from "../../../shared/deploy/revision-store";
import type { JsonObject } from "../../../shared/json";
import { KNOBS } from "../../../shared/knobs";
import type { AdapterStage } from "../../../shared/sandbox/types";
import type { RunnableAdapter } from "../../../shared/adapter/steps";

export interface RevisionMeta {
  id: string;
  target: string;
  codeKey: string;
  compiledBytes: number;
  publicContract: JsonObject | null;
  stages: AdapterStage[];
  config: JsonObject;
  definitionHash: string;
}

export interface LoadedRevision extends RevisionMeta {
  adapter: RunnableAdapter;
}

/** Revision rows as the gateway runs them (contract, config and stages parsed once). */
const metas = boundedCache<string, RevisionMeta>({ entries: KNOBS.revisionMetaCacheEntries });

const cacheKey = (workspaceUid: string, target: string, id: string) => `${workspaceUid}\n${target}\n${id}`;

/** A revision's metadata (D1 on a miss), or null when the row no longer exists (reset). */
export async function revisionMeta(
  db: D1Database,
  workspaceUid: string,
  target: string,
  id: string,
): Promise<RevisionMeta | null> {
  const key = cacheKey(workspaceUid, target, id);
  const cached = metas.get(key);
  if (cached) return cached;
  const row = await revisionRow(db, workspaceUid, target, id);
  if (!row) return null;
  const view = revisionView(row);
  const meta: RevisionMeta = {
    id: row.id,
    target: row.target,
    codeKey: row.codeKey,
    compiledBytes: row.compiledBytes,
    publicContract: view.publicContract,
    stages: view.stages,
    config: view.config,
    definitionHash: row.definitionHash,
  };
  metas.set(key, meta);
  return meta;
}

/** A revision ready to run (R2 on a code miss), or null when its row or code is gone. */
export async function loadRevision(
  env: { DB: D1Database; CODE: R2Bucket },
  workspaceUid: string,
  target: string,
  id: string,
): Promise<LoadedRevision | null> {
  const meta = await revisionMeta(env.DB, workspaceUid, target, id);
  if (!meta) return null;
  const code = await revisionCode(env.CODE, meta.codeKey);
  if (code === null) return null;
  return {
    ...meta,
    adapter: { code, stages: meta.stages, publicContract: meta.publicContract },
  };
}

/** For tests: forget every cached revision. */
export function clearRevisionCache(): void {
  metas.clear();
  clearRevisionStore();
}
