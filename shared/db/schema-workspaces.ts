// Workspaces and their API keys: the tables every other table hangs from.
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
    /** `rr_…` and the secret's last four characters, for lists; null for keys minted before it was stored. */
    displayHint: text("display_hint"),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    actor: text("actor").notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_workspace").on(t.workspaceUid)],
);
