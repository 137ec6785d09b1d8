// D1 table of workspace config: one JSON document per workspace, written under
// optimistic concurrency (a conditional write on `version`). docs/storage.md.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./schema-workspaces";

export const workspaceConfigs = sqliteTable("workspace_configs", {
  workspaceUid: text("workspace_uid")
    .primaryKey()
    .references(() => workspaces.uid),
  /** JSON text of the document as written (defaults are filled when read). */
  document: text("document").notNull(),
  /** 1 for the first write, +1 per write; a workspace without a row is at version 0. */
  version: integer("version").notNull(),
  /** `"c<version>"`, the entity tag GET answers and PUT's If-Match names. */
  etag: text("etag").notNull(),
  /** ISO-8601 UTC. */
  updatedAt: text("updated_at").notNull(),
  /** Actor of the key that wrote it. */
  updatedBy: text("updated_by").notNull(),
});
