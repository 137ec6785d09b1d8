// Revision rows (D1) and compiled code (R2) as the hot paths read them, kept
// per isolate. Both are immutable: a row never changes once written and code
// is named by its hash, so nothing here goes stale; a row removed by a reset
// is simply no longer pointed at. Reads in flight are shared, so a warm-up
// started when a lease arrives and the call that needs the same revision pay
// one trip between them.
//
// `warmPointed` is that warm-up: when an isolate takes a new view of a
// workspace, it reads every pointed revision's row in one query and, for
// pointers that carry their code's hash, the code at the same time — so a
// cold isolate's first call finds its adapter's and plugins' code already on
// the way in the round that reads the catalog, instead of one round for the
// row and another for the code after it.
import { and, eq, inArray } from "drizzle-orm";
import { boundedCache } from "../cache";
import { database } from "../db/client";
import { hookRevisions } from "../db/schema-deploy";
import { KNOBS } from "../knobs";
import type { Pointers } from "../lifecycle/pointers";
import { codeKey, getRevision, type RevisionRow } from "./revisions";

type Store = { DB: D1Database; CODE: R2Bucket };

const rows = boundedCache<string, Promise<RevisionRow | null>>({ entries: KNOBS.revisionMetaCacheEntries });
/** Code by R2 key, bounded in UTF-8 bytes; reads in flight are in `fetching` until they land. */
const codes = boundedCache<string, { code: string; bytes: number }>({
  size: KNOBS.revisionCodeCacheBytes,
  sizeOf: (entry) => entry.bytes,
});
const fetching = new Map<string, Promise<string | null>>();

const rowKey = (workspaceUid: string, target: string, id: string) => `${workspaceUid}\n${target}\n${id}`;

/** Remembers a row read (a missing one or a failed read is not remembered: the next call asks again). */
function keepRow(key: string, read: Promise<RevisionRow | null>): void {
  rows.set(key, read);
  const forget = () => {
    if (rows.get(key) === read) rows.delete(key);
  };
  read.then((row) => (row === null ? forget() : undefined), forget);
}

/** A revision's row (D1 on a miss), or null when it does not exist (never written, or reset). */
export function revisionRow(
  db: D1Database,
  workspaceUid: string,
  target: string,
  id: string,
): Promise<RevisionRow | null> {
  const key = rowKey(workspaceUid, target, id);
  const held = rows.get(key);
  if (held !== undefined) return held;
  const read = getRevision(db, workspaceUid, target, id).then((row) => row ?? null);
  keepRow(key, read);
  return read;
}

/** Compiled code by its R2 key (R2 on a miss), or null when the object is gone. */
export function revisionCode(bucket: R2Bucket, key: string): Promise<string | null> {
  const held = codes.get(key);
  if (held !== undefined) return Promise.resolve(held.code);
  const pending = fetching.get(key);
  if (pending !== undefined) return pending;
  const read = bucket
    .get(key)
    .then(async (object) => {
      if (object === null) return null;
      const code = await object.text();
      codes.set(key, { code, bytes: object.size });
      return code;
    })
    .finally(() => fetching.delete(key));
  fetching.set(key, read);
  return read;
}

/**
 * Starts reading every revision `pointers` name (active and shadow) that the
 * isolate does not hold: their rows in one D1 query, and the code of those
 * whose pointer names its hash, all at once. Skipped when their code together
 * exceeds KNOBS.warmCodeBytes (a big workspace loads each revision when a
 * call first needs it). Never rejects: a failed read is read again by
 * whoever needs it.
 */
export async function warmPointed(
  env: Store,
  workspaceUid: string,
  pointers: Readonly<Record<string, Pointers>>,
): Promise<void> {
  const wanted: { target: string; id: string; bytes: number; codeHash: string | undefined }[] = [];
  let bytes = 0;
  for (const [target, pair] of Object.entries(pointers)) {
    for (const pointer of [pair.active, pair.shadow]) {
      if (pointer === null) continue;
      wanted.push({ target, id: pointer.revisionId, bytes: pointer.bytes, codeHash: pointer.codeHash });
      bytes += pointer.bytes;
    }
  }
  if (wanted.length === 0 || bytes > KNOBS.warmCodeBytes) return;
  const code = wanted.flatMap(({ target, codeHash }) =>
    codeHash === undefined ? [] : [revisionCode(env.CODE, codeKey(workspaceUid, target, codeHash))],
  );
  const missing = wanted.filter(({ target, id }) => rows.get(rowKey(workspaceUid, target, id)) === undefined);
  const read = missing.length === 0 ? null : readRows(env.DB, workspaceUid, missing);
  // Rows whose pointer does not name the code's hash (set before hashes were recorded): code after row.
  const unnamed = wanted
    .filter((w) => w.codeHash === undefined)
    .map(async ({ target, id }) => {
      const row = await revisionRow(env.DB, workspaceUid, target, id);
      if (row !== null) await revisionCode(env.CODE, row.codeKey);
    });
  await Promise.allSettled([...code, ...(read === null ? [] : [read]), ...unnamed]);
}

/** The epoch each workspace was last warmed at, so one view is warmed once per isolate. */
const warmedAt = boundedCache<string, number>({ entries: KNOBS.leaseEntries });

/**
 * `warmPointed` for a view the isolate has not warmed yet (a new lease epoch:
 * the first call, or a deploy since). Returns the warm-up to keep alive, or
 * null when this view was warmed already.
 */
export function warmView(
  env: Store,
  workspaceUid: string,
  view: { epoch: number; pointers: Readonly<Record<string, Pointers>> },
): Promise<void> | null {
  if (warmedAt.get(workspaceUid) === view.epoch) return null;
  warmedAt.set(workspaceUid, view.epoch);
  return warmPointed(env, workspaceUid, view.pointers).catch((error: unknown) => {
    console.error("revisions: warm-up failed; calls read what they need", {
      workspaceUid,
      error: String(error),
    });
  });
}

/** D1's bound on a statement's parameters leaves room for this many ids beside the workspace's. */
const IDS_PER_QUERY = 90;

/** Reads `missing` rows in as few queries as D1 allows, each row remembered as it lands. */
async function readRows(
  db: D1Database,
  workspaceUid: string,
  missing: readonly { target: string; id: string }[],
): Promise<void> {
  const chunks: { target: string; id: string }[][] = [];
  for (let i = 0; i < missing.length; i += IDS_PER_QUERY) chunks.push(missing.slice(i, i + IDS_PER_QUERY));
  await Promise.all(
    chunks.map(async (chunk) => {
      const read = database(db)
        .select()
        .from(hookRevisions)
        .where(
          and(
            eq(hookRevisions.workspaceUid, workspaceUid),
            inArray(
              hookRevisions.id,
              chunk.map((c) => c.id),
            ),
          ),
        )
        .all();
      // Each wanted row is remembered as a promise at once, so a call asking meanwhile joins the query.
      for (const { target, id } of chunk) {
        keepRow(
          rowKey(workspaceUid, target, id),
          read.then((found) => found.find((row) => row.id === id && row.target === target) ?? null),
        );
      }
      await read;
    }),
  );
}

/** For tests: forget every row and code. */
export function clearRevisionStore(): void {
  warmedAt.clear();
  rows.clear();
  codes.clear();
  fetching.clear();
}
