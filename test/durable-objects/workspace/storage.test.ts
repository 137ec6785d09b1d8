import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, WorkspaceStorage } from "../../../durable-objects/workspace/storage";
import { workspaceObject } from "../../../durable-objects/workspace/rpc";

/** The tables objects wrote before their schema had a version row (the build before versioning). */
const UNVERSIONED_SCHEMA = `
create table if not exists meta (key text primary key, value text not null);
create table if not exists heads (
  target text primary key, generation integer not null, version integer not null,
  content_hash text not null, history_bytes integer not null
);
create table if not exists quota_windows (bucket text primary key, window_start integer not null, used integer not null);
create table if not exists pointers (
  target text not null, channel text not null, revision_id text not null, bytes integer not null,
  set_at text not null, primary key (target, channel)
);
create table if not exists revoked_keys (key_id text primary key, revoked_at text not null);`;

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\'",
    )
    .toArray()
    .map((r) => r.name)
    .toSorted();

describe("WorkspaceObject storage: a versioned schema", () => {
  it("a new object starts at the newest schema version", async () => {
    const stub = workspaceObject(env, `ws_schema_${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ version: number }>("select version from schema_version").one();
      expect(row.version).toBe(MIGRATIONS.length);
    });
  });

  it("an object written by the previous (unversioned) schema opens with its data and is brought up to date", async () => {
    const ws = `ws_schema_${crypto.randomUUID()}`;
    const stub = workspaceObject(env, ws);
    // Turn the object's storage into what the build before versioning left behind.
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      for (const name of tables(sql)) sql.exec(`drop table ${name}`);
      sql.exec(UNVERSIONED_SCHEMA);
      sql.exec("insert into meta (key, value) values ('catalog_version', '7')");
      sql.exec(
        "insert into pointers values ('tool:t1', 'active', 'rev_old', 1234, '2026-01-01T00:00:00.000Z')",
      );
      sql.exec("insert into revoked_keys values ('key_gone', '2026-01-01T00:00:00.000Z')");
      expect(tables(sql)).not.toContain("schema_version");
    });
    await evictDurableObject(stub);

    // A fresh instance of today's class reads every row the old one wrote.
    expect(await stub.catalogVersion()).toBe(7);
    expect(await stub.isKeyRevoked("key_gone")).toBe(true);
    expect(await stub.getPointers("tool:t1")).toMatchObject({
      active: { revisionId: "rev_old", bytes: 1234 },
    });
    await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ version: number }>("select version from schema_version").one();
      expect(row.version).toBe(MIGRATIONS.length);
    });
    // A pointer from before code hashes were recorded has none; one set now carries its hash to leases.
    expect((await stub.getPointers("tool:t1")).active).not.toHaveProperty("codeHash");
    await stub.setPointer("tool:t1", "shadow", "rev_new", 10, Date.now(), undefined, "ab12");
    expect((await stub.grantLease()).view.pointers["tool:t1"]?.shadow).toMatchObject({
      revisionId: "rev_new",
      codeHash: "ab12",
    });
  });

  it("migrations run in order, each once, and a database newer than the code is refused", async () => {
    const stub = workspaceObject(env, `ws_schema_${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("drop table schema_version");
      // The shipped steps already ran on this object (and an ALTER cannot run twice): stand-ins here.
      const steps = [
        ...MIGRATIONS.map(() => "select 1;"),
        "create table probe (n integer not null); insert into probe values (1);",
        "insert into probe values (2);",
      ];
      expect(migrate(sql, steps.slice(0, MIGRATIONS.length + 1))).toBe(0);
      expect(migrate(sql, steps)).toBe(MIGRATIONS.length + 1);
      expect(migrate(sql, steps)).toBe(steps.length);
      expect(sql.exec<{ n: number }>("select n from probe order by n").toArray()).toEqual([
        { n: 1 },
        { n: 2 },
      ]);
      // Now one version ahead of the shipped list: the object must not start on it.
      expect(() => new WorkspaceStorage(sql)).toThrow(
        `schema version ${steps.length}; this build knows ${MIGRATIONS.length}`,
      );
    });
  });
});
