// D1 tables of hook-run logs: one row per stage run (and per pipeline refusal),
// and the retention sweep's resume point. docs/storage.md.
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { HookKind, RunChannel, RunDetails, RunMode, RunOutcome, RunStage } from "./run-types";
import { workspaceRef } from "./columns";

export const hookRuns = sqliteTable(
  "hook_runs",
  {
    /** `log_…`: the run's own time (`at`) then random bits, so ids sort by run time. */
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    kind: text("kind").$type<HookKind>().notNull(),
    /** `tool:<uid>` or `file:<path>`. */
    target: text("target").notNull(),
    toolUid: text("tool_uid"),
    toolName: text("tool_name"),
    stage: text("stage").$type<RunStage>().notNull(),
    channel: text("channel").$type<RunChannel>().notNull(),
    outcome: text("outcome").$type<RunOutcome>().notNull(),
    code: text("code"),
    revisionId: text("revision_id"),
    requestId: text("request_id").notNull(),
    durationMs: real("duration_ms").notNull(),
    fuelUsed: integer("fuel_used").notNull(),
    shadowDiffered: integer("shadow_differed", { mode: "boolean" }),
    loop: text("loop"),
    plugin: text("plugin"),
    /** `code` for a Code Mode execution and the calls its code made; rows from before the column are `direct`. */
    mode: text("mode").$type<RunMode>().notNull().default("direct"),
    /** Request hooks: the run failed its request as a turn error; null for other kinds and older rows. */
    turnError: integer("turn_error", { mode: "boolean" }),
    /** Request hooks: the attempt's number (structural retries count on from 1); null otherwise. */
    attempt: integer("attempt"),
    /** ISO-8601 UTC time of the run. */
    at: text("at").notNull(),
    /** JSON text of the captured details, or null (not captured, or cleared by retention). */
    details: text("details", { mode: "json" }).$type<RunDetails>(),
    /** When the details were stored (ISO-8601 UTC); null with them. */
    detailsCapturedAt: text("details_captured_at"),
  },
  (t) => [
    index("hook_runs_workspace").on(t.workspaceUid, t.id),
    index("hook_runs_target").on(t.workspaceUid, t.target, t.id),
    index("hook_runs_request").on(t.workspaceUid, t.requestId),
    // Retention finds rows that still hold details without scanning cleared ones.
    index("hook_runs_details")
      .on(t.workspaceUid, t.id)
      .where(sql`${t.details} is not null`),
  ],
);

/** Where an unfinished retention sweep resumes (one row per sweep name). */
export const retentionCursors = sqliteTable("retention_cursors", {
  name: text("name").primaryKey(),
  /** The last workspace the sweep finished; "" to start from the first. */
  afterWorkspace: text("after_workspace").notNull(),
  /** How many of its steps the sweep already finished in the workspace after `afterWorkspace`. */
  stepsDone: integer("steps_done").notNull().default(0),
  updatedAt: text("updated_at").notNull(),
});
