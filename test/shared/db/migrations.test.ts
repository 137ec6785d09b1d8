// The migrations in migrations/ build exactly the database the drizzle schema
// declares: every table, column (type, nullability, default, primary key),
// index and foreign key, read back from D1 itself.
import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../../shared/db/schema";

const exported: unknown[] = Object.values(schema);
const tables = exported
  .filter((value): value is SQLiteTable => is(value, SQLiteTable))
  .map((table) => getTableConfig(table));

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}
interface IndexInfo {
  name: string;
  unique: number;
  origin: string;
  partial: number;
}
interface ForeignKeyInfo {
  table: string;
  from: string;
  to: string;
}

const pragma = async <T>(statement: string): Promise<T[]> =>
  (await env.DB.prepare(statement).all<T>()).results;
const columnsOf = (table: string) => pragma<ColumnInfo>(`PRAGMA table_info("${table}")`);
const indexesOf = (table: string) => pragma<IndexInfo>(`PRAGMA index_list("${table}")`);
const indexColumns = async (index: string) =>
  (await pragma<{ seqno: number; name: string }>(`PRAGMA index_info("${index}")`))
    .toSorted((a, b) => a.seqno - b.seqno)
    .map((c) => c.name);
const foreignKeysOf = (table: string) => pragma<ForeignKeyInfo>(`PRAGMA foreign_key_list("${table}")`);

const columnName = (column: unknown): string => {
  if (!is(column, SQLiteColumn)) throw new Error("index on an expression");
  return column.name;
};

describe("the schema barrel", () => {
  it("declares the tables, each once", () => {
    expect(tables.length).toBeGreaterThan(0);
    const names = tables.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("migrations create what the schema declares", () => {
  it("every declared table exists, and the migrations create no undeclared one", async () => {
    const existing = (
      await pragma<{ name: string }>(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%' and name <> 'd1_migrations'",
      )
    ).map((t) => t.name);
    expect(existing.toSorted()).toEqual(tables.map((t) => t.name).toSorted());
  });

  it.each(tables.map((t) => [t.name, t] as const))(
    "%s has exactly the declared columns",
    async (_, table) => {
      const actual = await columnsOf(table.name);
      expect(actual.map((c) => c.name).toSorted()).toEqual(table.columns.map((c) => c.name).toSorted());
      for (const column of table.columns) {
        const info = actual.find((c) => c.name === column.name);
        const where = `${table.name}.${column.name}`;
        expect(info?.type, where).toBe(column.getSQLType().toUpperCase());
        // A primary key column is not null in the declaration; SQLite reports notnull only when spelled out.
        expect(info?.notnull === 1 || (info?.pk ?? 0) > 0, where).toBe(column.notNull);
        expect(info?.dflt_value !== null, where).toBe(column.hasDefault);
      }
    },
  );

  it.each(tables.map((t) => [t.name, t] as const))("%s has the declared primary key", async (_, table) => {
    const declared =
      table.primaryKeys.length > 0
        ? (table.primaryKeys[0]?.columns.map((c) => c.name) ?? [])
        : table.columns.filter((c) => c.primary).map((c) => c.name);
    expect(declared.length, "every table has a primary key").toBeGreaterThan(0);
    const actual = (await columnsOf(table.name))
      .filter((c) => c.pk > 0)
      .toSorted((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    expect(actual).toEqual(declared);
  });

  it.each(tables.map((t) => [t.name, t] as const))("%s has the declared indexes", async (_, table) => {
    const actual = await indexesOf(table.name);
    for (const { config } of table.indexes) {
      const info = actual.find((i) => i.name === config.name);
      expect(info, config.name).toBeDefined();
      expect(info?.unique === 1, config.name).toBe(config.unique);
      expect(info?.partial === 1, config.name).toBe(config.where !== undefined);
      expect(await indexColumns(config.name)).toEqual(config.columns.map(columnName));
    }
    // A unique column has a unique index on it alone.
    const uniqueColumns = table.columns.filter((c) => c.isUnique);
    for (const column of uniqueColumns) {
      const info = actual.find((i) => i.name === column.uniqueName);
      expect(info?.unique, `${table.name}.${column.name}`).toBe(1);
      expect(await indexColumns(column.uniqueName ?? "")).toEqual([column.name]);
    }
    // The migrations create no index the schema does not declare.
    const created = actual.filter((i) => i.origin === "c").map((i) => i.name);
    expect(created.toSorted()).toEqual(
      [
        ...table.indexes.map((i) => i.config.name),
        ...uniqueColumns.map((c) => c.uniqueName ?? ""),
      ].toSorted(),
    );
  });

  it.each(tables.map((t) => [t.name, t] as const))("%s has the declared foreign keys", async (_, table) => {
    const actual = (await foreignKeysOf(table.name)).map((fk) => `${fk.from} → ${fk.table}.${fk.to}`);
    const declared = table.foreignKeys.flatMap((fk) => {
      const ref = fk.reference();
      const target = getTableConfig(ref.foreignTable).name;
      return ref.columns.map((column, i) => `${column.name} → ${target}.${ref.foreignColumns[i]?.name}`);
    });
    expect(actual.toSorted()).toEqual(declared.toSorted());
  });
});

describe("workspaceRef", () => {
  const scoped = tables.filter(
    (t) => t.name !== "workspaces" && t.columns.some((c) => c.name === "workspace_uid"),
  );

  it("every workspace-scoped table's workspace_uid is a not-null reference to workspaces.uid", async () => {
    expect(scoped.length).toBeGreaterThan(1);
    for (const table of scoped) {
      const column = (await columnsOf(table.name)).find((c) => c.name === "workspace_uid");
      expect(column?.notnull === 1 || (column?.pk ?? 0) > 0, table.name).toBe(true);
      expect(await foreignKeysOf(table.name), table.name).toContainEqual(
        expect.objectContaining({ from: "workspace_uid", table: "workspaces", to: "uid" }),
      );
    }
  });

  it("D1 enforces the reference: a row for a workspace that does not exist is refused", async () => {
    const missing = `ws_missing_${crypto.randomUUID()}`;
    const insert = env.DB.prepare(
      "insert into hook_reset_events (id, workspace_uid, target, actor, at, versions_removed, revisions_removed) values (?, ?, 'file:lib/x.ts', 'tester', '2031-01-01T00:00:00.000Z', 0, 0)",
    );
    await expect(insert.bind(crypto.randomUUID(), missing).run()).rejects.toThrow(/FOREIGN KEY/i);
    const uid = `ws_${crypto.randomUUID()}`;
    await env.DB.prepare("insert into workspaces (uid, name, created_by) values (?, 'fk', 'tester')")
      .bind(uid)
      .run();
    await insert.bind(crypto.randomUUID(), uid).run();
    const row = await env.DB.prepare("select count(*) as n from hook_reset_events where workspace_uid = ?")
      .bind(uid)
      .first<{ n: number }>();
    expect(row?.n).toBe(1);
  });
});
