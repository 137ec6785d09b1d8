// Deployment revisions as the gateway runs them, cached in the isolate by
// revision id. Revisions are immutable (their code is content-addressed in R2),
// so an entry never goes stale; the caches are bounded so that a stream of
// distinct revisions cannot grow the isolate without limit.
import { getRevision, revisionView } from "../deploy/revisions";
import type { JsonObject } from "../json";
import type { AdapterStage } from "../sandbox/types";
import type { RunnableAdapter } from "./adapter-steps";

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

/** Revision rows kept (they are small: contract, config, stages). */
export const REVISION_META_CACHE_ENTRIES = 1024;
/** Compiled code kept, in UTF-8 bytes (a revision is at most LIMITS.compiledBytes). */
export const REVISION_CODE_CACHE_BYTES = 8 * 1024 * 1024;

const metas = new Map<string, RevisionMeta>();
const codes = new Map<string, { code: string; bytes: number }>();
let codeBytes = 0;

function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

const cacheKey = (workspaceUid: string, target: string, id: string) => `${workspaceUid}\n${target}\n${id}`;

/** A revision's metadata (D1 on a miss), or null when the row no longer exists (reset). */
export async function revisionMeta(
  db: D1Database,
  workspaceUid: string,
  target: string,
  id: string,
): Promise<RevisionMeta | null> {
  const key = cacheKey(workspaceUid, target, id);
  const cached = touch(metas, key);
  if (cached) return cached;
  const row = await getRevision(db, workspaceUid, target, id);
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
  if (metas.size > REVISION_META_CACHE_ENTRIES) {
    const oldest = metas.keys().next();
    if (!oldest.done) metas.delete(oldest.value);
  }
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
  let entry = touch(codes, meta.id);
  if (!entry) {
    const object = await env.CODE.get(meta.codeKey);
    if (!object) return null;
    const code = await object.text();
    entry = { code, bytes: meta.compiledBytes };
    codes.set(meta.id, entry);
    codeBytes += entry.bytes;
    while (codeBytes > REVISION_CODE_CACHE_BYTES && codes.size > 1) {
      const oldest = codes.entries().next();
      if (oldest.done) break;
      codes.delete(oldest.value[0]);
      codeBytes -= oldest.value[1].bytes;
    }
  }
  return {
    ...meta,
    adapter: { code: entry.code, stages: meta.stages, publicContract: meta.publicContract },
  };
}

/** For tests: forget every cached revision. */
export function clearRevisionCache(): void {
  metas.clear();
  codes.clear();
  codeBytes = 0;
}
