// Reading hook-run records: filters, newest first, paged by run id.
import { and, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import { database } from "../db/client";
import { hookRuns } from "../db/schema";
import { newId } from "../ids";
import type {
  HookKind,
  RunChannel,
  RunDetails,
  RunMetadata,
  RunMode,
  RunOutcome,
  RunStage,
} from "../db/run-types";
import { RUN_ID_PREFIX } from "./writer";

/** The shape of a run id: the prefix, 10 time characters and 12 random ones. */
export const RUN_ID = new RegExp(`^${RUN_ID_PREFIX}_[0-9a-hjkmnp-tv-z]{22}$`);

/**
 * The smallest id string of any run at or after `ms`: ids lead with their run
 * time, so `id < runIdBound(t)` selects exactly the runs before `t`.
 */
export const runIdBound = (ms: number): string =>
  newId(RUN_ID_PREFIX, ms).slice(0, RUN_ID_PREFIX.length + 11);

export interface RunFilters {
  workspaceUid: string;
  target?: string;
  /** A tool's uid, or the name it was called by (plugin tools have only a name). */
  tool?: string;
  stage?: RunStage;
  outcome?: RunOutcome;
  channel?: RunChannel;
  kind?: HookKind;
  revisionId?: string;
  /** The request's runs and those of the calls made under it (`<id>.1`, `<id>.2`, … of a Code Mode execution). */
  requestId?: string;
  mode?: RunMode;
  /** Inclusive, epoch ms. */
  sinceMs?: number;
  /** Inclusive, epoch ms. */
  untilMs?: number;
}

/** One record as the API answers it; `details` is present only for callers allowed to see details. */
export interface RunView extends Omit<RunMetadata, "loop" | "plugin" | "mode" | "turnError" | "attempt"> {
  id: string;
  loop: string | null;
  plugin: string | null;
  mode: RunMode;
  turnError: boolean | null;
  attempt: number | null;
  details?: RunDetails | null;
}

type Row = typeof hookRuns.$inferSelect;

function runView(row: Row, withDetails: boolean): RunView {
  return {
    id: row.id,
    at: row.at,
    workspaceUid: row.workspaceUid,
    kind: row.kind,
    target: row.target,
    toolUid: row.toolUid,
    toolName: row.toolName,
    stage: row.stage,
    channel: row.channel,
    outcome: row.outcome,
    code: row.code,
    revisionId: row.revisionId,
    requestId: row.requestId,
    durationMs: row.durationMs,
    fuelUsed: row.fuelUsed,
    shadowDiffered: row.shadowDiffered,
    loop: row.loop,
    plugin: row.plugin,
    mode: row.mode,
    turnError: row.turnError,
    attempt: row.attempt,
    ...(withDetails ? { details: row.details } : {}),
  };
}

/**
 * The request's own runs and its child calls' (`<id>.<n>`, at any depth): the
 * children are exactly the ids in [`<id>.`, `<id>/`), since "/" follows "." in
 * byte order, so both halves use the request-id index.
 */
const requestAndChildren = (requestId: string): SQL | undefined =>
  or(
    eq(hookRuns.requestId, requestId),
    and(gte(hookRuns.requestId, `${requestId}.`), lt(hookRuns.requestId, `${requestId}/`)),
  );

/** Up to `limit` runs, newest first, older than the run `after` when given. */
export async function listRuns(
  db: D1Database,
  filters: RunFilters,
  page: { limit: number; after?: string | undefined; withDetails: boolean },
): Promise<RunView[]> {
  const conditions: (SQL | undefined)[] = [
    eq(hookRuns.workspaceUid, filters.workspaceUid),
    filters.target === undefined ? undefined : eq(hookRuns.target, filters.target),
    filters.tool === undefined
      ? undefined
      : or(eq(hookRuns.toolUid, filters.tool), eq(hookRuns.toolName, filters.tool)),
    filters.stage === undefined ? undefined : eq(hookRuns.stage, filters.stage),
    filters.outcome === undefined ? undefined : eq(hookRuns.outcome, filters.outcome),
    filters.channel === undefined ? undefined : eq(hookRuns.channel, filters.channel),
    filters.kind === undefined ? undefined : eq(hookRuns.kind, filters.kind),
    filters.revisionId === undefined ? undefined : eq(hookRuns.revisionId, filters.revisionId),
    filters.requestId === undefined ? undefined : requestAndChildren(filters.requestId),
    filters.mode === undefined ? undefined : eq(hookRuns.mode, filters.mode),
    filters.sinceMs === undefined ? undefined : gte(hookRuns.id, runIdBound(filters.sinceMs)),
    filters.untilMs === undefined ? undefined : lt(hookRuns.id, runIdBound(filters.untilMs + 1)),
    page.after === undefined ? undefined : lt(hookRuns.id, page.after),
  ];
  const rows = await database(db)
    .select()
    .from(hookRuns)
    .where(and(...conditions))
    .orderBy(desc(hookRuns.id))
    .limit(page.limit)
    .all();
  return rows.map((row) => runView(row, page.withDetails));
}
