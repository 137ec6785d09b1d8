// D1 tables of the hook lifecycle (drafts, immutable versions, reset events).
// Re-exported from schema.ts; docs/storage.md documents every column and
// which store is the authority for each fact.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaceRef } from "./columns";

/**
 * Immutable draft history. The draft of a target is its newest version in the
 * current generation (version 0, the empty draft, has no row). A reset bumps the
 * generation in the WorkspaceObject and deletes the older generations' rows.
 */
export const hookVersions = sqliteTable(
  "hook_versions",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    /** `tool:<toolUid>` or `file:<path>`. */
    target: text("target").notNull(),
    generation: integer("generation").notNull(),
    number: integer("number").notNull(),
    source: text("source").notNull(),
    /** JSON text of the non-secret config object. */
    config: text("config").notNull(),
    formatted: integer("formatted", { mode: "boolean" }).notNull(),
    /** UTF-8 bytes of source + config JSON; summed for the draft-history allowance. */
    bytes: integer("bytes").notNull(),
    /** SHA-256 of source and canonical config; equal hashes are identical saves. */
    contentHash: text("content_hash").notNull(),
    actor: text("actor").notNull(),
    keyId: text("key_id").notNull(),
    channel: text("channel", { enum: ["api", "cli", "web"] }).notNull(),
    note: text("note"),
    /** Set when the version was created by restoring that earlier version. */
    restoredFrom: integer("restored_from"),
    /** ISO-8601 UTC, from the WorkspaceObject's clock. */
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("hook_versions_number").on(t.workspaceUid, t.target, t.generation, t.number)],
);

/** Actor-attributed record of a reset; kept after the history it removed is gone. */
export const hookResetEvents = sqliteTable(
  "hook_reset_events",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    target: text("target").notNull(),
    actor: text("actor").notNull(),
    /** ISO-8601 UTC. */
    at: text("at").notNull(),
    versionsRemoved: integer("versions_removed").notNull(),
    revisionsRemoved: integer("revisions_removed").notNull(),
  },
  (t) => [index("hook_reset_events_target").on(t.workspaceUid, t.target)],
);
