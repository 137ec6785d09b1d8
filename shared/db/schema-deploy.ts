// D1 tables of testing and deployment: test-console runs, immutable deployment
// revisions (their code lives in R2) and the history of pointer moves.
// docs/storage.md says which store is the authority for each fact.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { RunDetails } from "./run-types";
import { workspaceRef } from "./columns";

/** The id prefix of `hook_test_runs` rows; ids lead with the run's time (retention works on id ranges). */
export const TEST_RUN_ID_PREFIX = "run";

/**
 * Test-console runs, stored with the version they ran. Like `hook_runs`, the
 * columns are metadata and `details` is kept only under the capture policy;
 * the retention sweep deletes and clears them on the same schedule.
 */
export const hookTestRuns = sqliteTable(
  "hook_test_runs",
  {
    /** `run_…`: the run's time first, so ids sort by time and retention works on id ranges. */
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    target: text("target").notNull(),
    generation: integer("generation").notNull(),
    version: integer("version").notNull(),
    /** Tool adapters: `before` / `after`; workspace files: the export (lib) or hook (plugin) that ran. */
    stage: text("stage").notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    code: text("code"),
    /** A completed run with a valid outcome of any action; `hook_*` failures do not count. */
    counts: integer("counts", { mode: "boolean" }).notNull(),
    actor: text("actor").notNull(),
    keyId: text("key_id").notNull(),
    createdAt: text("created_at").notNull(),
    /** JSON text of the run's captured details (what it was given, logs, outcome), or null: not captured, or cleared. */
    details: text("details", { mode: "json" }).$type<RunDetails>(),
    /** When the details were stored (ISO-8601 UTC); null with them. */
    detailsCapturedAt: text("details_captured_at"),
  },
  (t) => [
    index("hook_test_runs_version").on(t.workspaceUid, t.target, t.generation, t.version),
    // The retention sweep's ranges: old rows by id, and rows that still hold details.
    index("hook_test_runs_workspace").on(t.workspaceUid, t.id),
    index("hook_test_runs_details")
      .on(t.workspaceUid, t.id)
      .where(sql`${t.details} is not null`),
  ],
);

/** Immutable, compiled and tested deployment revisions; only these can execute. */
export const hookRevisions = sqliteTable(
  "hook_revisions",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    target: text("target").notNull(),
    generation: integer("generation").notNull(),
    version: integer("version").notNull(),
    /** SHA-256 hex of the compiled code; also the R2 object's name. */
    codeHash: text("code_hash").notNull(),
    /** R2 key of the compiled code (scoped per workspace and target). */
    codeKey: text("code_key").notNull(),
    compiledBytes: integer("compiled_bytes").notNull(),
    /** JSON text: the publicContract extracted at compile time, or null. */
    publicContract: text("public_contract"),
    /** JSON text: the stages the adapter defines (`[]` for workspace files). */
    stages: text("stages").notNull(),
    /**
     * JSON text, workspace files only (null for tool adapters): a lib file's
     * exported functions, or a plugin's hook names.
     */
    exports: text("exports"),
    /**
     * JSON text, plugins with a `tool` hook only (null otherwise): the tool
     * definitions `[{ id, description, parameters }]` its `tool({})` gave once at
     * deploy time.
     */
    tools: text("tools"),
    /** JSON text of the non-secret config deployed with the revision. */
    config: text("config").notNull(),
    /** The tool's accepted upstream definition hash the revision was compiled against ("" for workspace files). */
    definitionHash: text("definition_hash").notNull(),
    actor: text("actor").notNull(),
    keyId: text("key_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("hook_revisions_target").on(t.workspaceUid, t.target, t.generation),
    // An identical compile of the same version against the same definition is reused.
    uniqueIndex("hook_revisions_identity").on(
      t.workspaceUid,
      t.target,
      t.generation,
      t.version,
      t.codeHash,
      t.definitionHash,
    ),
  ],
);

/** Every move of an active/shadow pointer, attributed (the WorkspaceObject holds the current ones). */
export const hookPointerEvents = sqliteTable(
  "hook_pointer_events",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    target: text("target").notNull(),
    channel: text("channel", { enum: ["active", "shadow"] }).notNull(),
    action: text("action", { enum: ["deploy", "rollback", "drop", "reset"] }).notNull(),
    revisionId: text("revision_id"),
    previousRevisionId: text("previous_revision_id"),
    actor: text("actor").notNull(),
    at: text("at").notNull(),
  },
  (t) => [index("hook_pointer_events_target").on(t.workspaceUid, t.target)],
);
