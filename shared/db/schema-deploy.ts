// D1 tables of testing and deployment: test-console runs, immutable deployment
// revisions (their code lives in R2) and the history of pointer moves.
// docs/storage.md says which store is the authority for each fact.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaceRef } from "./columns";

/** Test-console runs, stored with the version they ran (DESIGN §7). */
export const hookTestRuns = sqliteTable(
  "hook_test_runs",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    target: text("target").notNull(),
    generation: integer("generation").notNull(),
    version: integer("version").notNull(),
    /** Tool adapters: `before` / `after`; workspace files: the export (lib) or hook (plugin) that ran. */
    stage: text("stage").notNull(),
    /** JSON text of what the run was given: `{ arguments?, result? }` (adapters), `{ input }` (files). */
    input: text("input").notNull(),
    /** JSON text of the run as the console answered it (outcome or failure, logs). */
    report: text("report").notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    code: text("code"),
    /** A completed run with a valid outcome of any action; `hook_*` failures do not count. */
    counts: integer("counts", { mode: "boolean" }).notNull(),
    actor: text("actor").notNull(),
    keyId: text("key_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("hook_test_runs_version").on(t.workspaceUid, t.target, t.generation, t.version)],
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
     * deploy time (seed 003: called once, cached; DESIGN §7 "Files and plugins").
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
