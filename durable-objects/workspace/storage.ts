// The WorkspaceObject's own SQLite storage: draft heads, quota windows,
// deployment pointers and revoked keys, under a versioned schema. Every method
// is synchronous, so each one is atomic.
//
// The gateway's per-call round trip (recheckDispatch) reads pointers, the
// catalog version and a key's revocation on every tool call, so those reads
// come from memory once read: the object is the only writer of its storage,
// and each write below updates or drops the cached value in the same
// synchronous step, so memory never disagrees with the tables. An evicted
// object starts with empty caches.
import { boundedCache, type LRUCache } from "../../shared/cache";
import { KNOBS } from "../../shared/knobs";
import type { DeployChannel, Pointer, Pointers } from "../../shared/lifecycle/pointers";

export interface StoredHeadRow {
  target: string;
  generation: number;
  version: number;
  contentHash: string;
  /** Draft-history bytes of this target's current generation. */
  historyBytes: number;
}

/**
 * The object's SQLite schema, as an ordered list of migrations: entry `i`
 * brings a database from version `i` to `i + 1`. Append only; never edit a
 * shipped entry (objects in the field ran it). Version 1 is the schema objects
 * had before the version row existed, written so that it also runs over those
 * tables unchanged.
 */
export const MIGRATIONS: readonly string[] = [
  `create table if not exists meta (key text primary key, value text not null);
   create table if not exists heads (
     target text primary key,
     generation integer not null,
     version integer not null,
     content_hash text not null,
     history_bytes integer not null
   );
   create table if not exists quota_windows (
     bucket text primary key,
     window_start integer not null,
     used integer not null
   );
   create table if not exists pointers (
     target text not null,
     channel text not null,
     revision_id text not null,
     bytes integer not null,
     set_at text not null,
     primary key (target, channel)
   );
   create table if not exists revoked_keys (key_id text primary key, revoked_at text not null);`,
  // The pointed revision's code hash, so a lease names each deployed revision's R2 object.
  `alter table pointers add column code_hash text;`,
];

/**
 * Brings `sql` to `migrations.length`, recording the version in
 * `schema_version`; returns the version it found. Refuses a database newer
 * than this code (an older build rolled out over a newer one), so the object
 * fails loudly instead of misreading rows.
 */
export function migrate(sql: SqlStorage, migrations: readonly string[] = MIGRATIONS): number {
  sql.exec(
    "create table if not exists schema_version (id integer primary key check (id = 1), version integer not null)",
  );
  const found =
    sql.exec<{ version: number }>("select version from schema_version").toArray()[0]?.version ?? 0;
  if (found > migrations.length)
    throw new Error(
      `WorkspaceObject storage is at schema version ${found}; this build knows ${migrations.length}`,
    );
  for (let version = found; version < migrations.length; version++) {
    sql.exec(migrations[version] ?? "");
    sql.exec(
      "insert into schema_version (id, version) values (1, ?) on conflict (id) do update set version = excluded.version",
      version + 1,
    );
  }
  return found;
}

/** A cache of KNOBS.workspaceObjectCacheEntries; past it the least recently used is dropped (read again from SQL). */
const objectCache = <V extends {}>() =>
  boundedCache<string, V>({ entries: KNOBS.workspaceObjectCacheEntries });

function remember<V extends {}>(cache: LRUCache<string, V>, key: string, value: V): V {
  cache.set(key, value);
  return value;
}

type HeadRecord = {
  target: string;
  generation: number;
  version: number;
  content_hash: string;
  history_bytes: number;
};
type PointerRecord = {
  target: string;
  channel: DeployChannel;
  revision_id: string;
  bytes: number;
  set_at: string;
  code_hash: string | null;
};

export class WorkspaceStorage {
  #written = false;
  /** Boxed: a missing key is remembered too. */
  readonly #meta = objectCache<{ value: string | null }>();
  /** Frozen, so a caller cannot change what the next read returns. */
  readonly #pointers = objectCache<Readonly<Pointers>>();
  readonly #revoked = objectCache<boolean>();

  constructor(private readonly sql: SqlStorage) {
    migrate(sql);
  }

  /** Whether no write ever reached this object (its tables are empty); once written, it stays so. */
  neverWritten(): boolean {
    if (this.#written) return false;
    this.#written =
      this.sql
        .exec<{ written: number }>(
          `select exists(select 1 from meta) or exists(select 1 from pointers)
             or exists(select 1 from revoked_keys) or exists(select 1 from heads) as written`,
        )
        .one().written !== 0;
    return !this.#written;
  }

  getMeta(key: string): string | null {
    const cached = this.#meta.get(key);
    if (cached !== undefined) return cached.value;
    const row = this.sql.exec<{ value: string }>("select value from meta where key = ?", key).toArray()[0];
    return remember(this.#meta, key, { value: row?.value ?? null }).value;
  }

  setMeta(key: string, value: string): void {
    this.sql.exec(
      "insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value",
      key,
      value,
    );
    remember(this.#meta, key, { value });
  }

  /** The gateway's per-workspace list of revoked keys, told by the revoke route. */
  isRevoked(keyId: string): boolean {
    const cached = this.#revoked.get(keyId);
    if (cached !== undefined) return cached;
    const found = this.sql.exec("select 1 from revoked_keys where key_id = ?", keyId).toArray().length > 0;
    return remember(this.#revoked, keyId, found);
  }

  /** Adds a key to the revoked list (idempotent: the first revocation time stays). */
  revoke(keyId: string, revokedAt: string): void {
    this.sql.exec(
      "insert into revoked_keys (key_id, revoked_at) values (?, ?) on conflict (key_id) do nothing",
      keyId,
      revokedAt,
    );
    remember(this.#revoked, keyId, true);
  }

  /** Keys revoked at or after `since` (ISO-8601), oldest first. */
  revokedSince(since: string): string[] {
    return this.sql
      .exec<{ key_id: string }>(
        "select key_id from revoked_keys where revoked_at >= ? order by revoked_at, key_id",
        since,
      )
      .toArray()
      .map((row) => row.key_id);
  }

  head(target: string): StoredHeadRow | null {
    const row = this.sql
      .exec<HeadRecord>(
        "select target, generation, version, content_hash, history_bytes from heads where target = ?",
        target,
      )
      .toArray()[0];
    return row ? toHead(row) : null;
  }

  heads(): StoredHeadRow[] {
    return this.sql
      .exec<HeadRecord>("select target, generation, version, content_hash, history_bytes from heads")
      .toArray()
      .map(toHead);
  }

  putHead(head: StoredHeadRow): void {
    this.sql.exec(
      `insert into heads (target, generation, version, content_hash, history_bytes) values (?, ?, ?, ?, ?)
       on conflict (target) do update set generation = excluded.generation, version = excluded.version,
         content_hash = excluded.content_hash, history_bytes = excluded.history_bytes`,
      head.target,
      head.generation,
      head.version,
      head.contentHash,
      head.historyBytes,
    );
  }

  historyBytes(): number {
    const row = this.sql
      .exec<{ total: number | null }>("select sum(history_bytes) as total from heads")
      .one();
    return row.total ?? 0;
  }

  /** Units used in `bucket`'s window starting at `windowStart` (0 for an older or missing window). */
  quotaUsed(bucket: string, windowStart: number): number {
    const row = this.sql
      .exec<{ window_start: number; used: number }>(
        "select window_start, used from quota_windows where bucket = ?",
        bucket,
      )
      .toArray()[0];
    return row && row.window_start === windowStart ? row.used : 0;
  }

  setQuotaUsed(bucket: string, windowStart: number, used: number): void {
    this.sql.exec(
      `insert into quota_windows (bucket, window_start, used) values (?, ?, ?)
       on conflict (bucket) do update set window_start = excluded.window_start, used = excluded.used`,
      bucket,
      windowStart,
      used,
    );
  }

  /** A new object each time (callers may build on it); its pointers are frozen. */
  pointers(target: string): Pointers {
    let cached = this.#pointers.get(target);
    if (cached === undefined) {
      const read: Pointers = { active: null, shadow: null };
      const rows = this.sql
        .exec<PointerRecord>(
          "select target, channel, revision_id, bytes, set_at, code_hash from pointers where target = ?",
          target,
        )
        .toArray();
      for (const row of rows) {
        read[row.channel] = Object.freeze({
          revisionId: row.revision_id,
          bytes: row.bytes,
          setAt: row.set_at,
          ...(row.code_hash === null ? {} : { codeHash: row.code_hash }),
        });
      }
      cached = remember(this.#pointers, target, Object.freeze(read));
    }
    return { active: cached.active, shadow: cached.shadow };
  }

  /** Pointers of every target that has one, by target. */
  allPointers(): Record<string, Pointers> {
    const out: Record<string, Pointers> = {};
    const rows = this.sql.exec<{ target: string }>("select distinct target from pointers").toArray();
    for (const { target } of rows) out[target] = this.pointers(target);
    return out;
  }

  putPointer(target: string, channel: DeployChannel, pointer: Pointer): void {
    this.sql.exec(
      `insert into pointers (target, channel, revision_id, bytes, set_at, code_hash) values (?, ?, ?, ?, ?, ?)
       on conflict (target, channel) do update set revision_id = excluded.revision_id, bytes = excluded.bytes,
         set_at = excluded.set_at, code_hash = excluded.code_hash`,
      target,
      channel,
      pointer.revisionId,
      pointer.bytes,
      pointer.setAt,
      pointer.codeHash ?? null,
    );
    this.#pointers.delete(target);
  }

  /**
   * Targets starting with `prefix` that exist — a saved draft or a pointer —
   * in target order, after `after` (exclusive), at most `limit`.
   */
  targetsWithPrefix(prefix: string, after: string, limit: number): string[] {
    return this.sql
      .exec<{ target: string }>(
        `select target from (
           select target from heads where version > 0
           union
           select target from pointers
         )
         where substr(target, 1, ?) = ? and target > ?
         order by target limit ?`,
        prefix.length,
        prefix,
        after,
        limit,
      )
      .toArray()
      .map((row) => row.target);
  }

  deletePointer(target: string, channel: DeployChannel): void {
    this.sql.exec("delete from pointers where target = ? and channel = ?", target, channel);
    this.#pointers.delete(target);
  }

  /**
   * Deployed code bytes of the workspace: each distinct revision counts once, however
   * many pointers name it. `replacing` previews the total with one pointer swapped.
   */
  deployedCodeBytes(replacing?: { target: string; channel: DeployChannel; pointer: Pointer | null }): number {
    const revisions = new Map<string, number>();
    const rows = this.sql
      .exec<PointerRecord>("select target, channel, revision_id, bytes, set_at from pointers")
      .toArray();
    for (const row of rows) {
      if (replacing && row.target === replacing.target && row.channel === replacing.channel) continue;
      revisions.set(row.revision_id, row.bytes);
    }
    if (replacing?.pointer) revisions.set(replacing.pointer.revisionId, replacing.pointer.bytes);
    let total = 0;
    for (const bytes of revisions.values()) total += bytes;
    return total;
  }
}

const toHead = (row: HeadRecord): StoredHeadRow => ({
  target: row.target,
  generation: row.generation,
  version: row.version,
  contentHash: row.content_hash,
  historyBytes: row.history_bytes,
});
