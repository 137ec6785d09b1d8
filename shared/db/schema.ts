// D1 tables (drizzle). `docs/storage.md` says which store is the authority
// for each fact; migrations/ is generated from this file by drizzle-kit.
import { sql } from "drizzle-orm";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const workspaces = sqliteTable("workspaces", {
  uid: text("uid").primaryKey(),
  name: text("name").notNull(),
  createdBy: text("created_by").notNull(),
  createdAt: createdAt(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceUid: text("workspace_uid")
      .notNull()
      .references(() => workspaces.uid),
    /** SHA-256 of the secret; the secret itself is shown once and never stored. */
    secretHash: text("secret_hash").notNull().unique(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    actor: text("actor").notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_workspace").on(t.workspaceUid)],
);

export * from "./schema-services";
export * from "./schema-hooks";
export * from "./schema-deploy";
export * from "./schema-config";
export * from "./schema-logs";
export * from "./schema-gateway";
