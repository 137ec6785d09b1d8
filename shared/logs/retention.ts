// Retention sweep over hook-run logs: per workspace, delete rows older than its
// `retention.logsDays` and clear details older than `retention.detailsDays`.
// Bounded per run (statements × rows), resumable, idempotent, and safe beside
// inserts: every statement selects a bounded set of rows strictly older than a
// cutoff (by id, which leads with the run's time), never "delete then reinsert".
import { configFromDocument, type WorkspaceConfig } from "../config/schema";
import { runIdBound } from "./query";

const DAY_MS = 86_400_000;
const SWEEP = "hook_runs";

export interface RetentionOptions {
  /** The sweep's "now" (epoch ms); the cron passes its scheduled time. */
  now: number;
  /** Rows one statement deletes or clears at most. */
  batchSize: number;
  /** D1 statements one run issues at most (the free plan allows 50 per invocation). */
  maxStatements: number;
  /** Workspaces read per page. */
  workspacePageSize: number;
}

export const RETENTION_DEFAULTS: Omit<RetentionOptions, "now"> = {
  batchSize: 500,
  maxStatements: 40,
  workspacePageSize: 50,
};

export interface RetentionReport {
  workspaces: number;
  rowsDeleted: number;
  detailsCleared: number;
  statements: number;
  /** False when the statement budget ran out; the next run resumes where this one stopped. */
  complete: boolean;
}

class Budget {
  used = 0;
  constructor(readonly max: number) {}
  get left(): boolean {
    return this.used < this.max;
  }
  async run<T>(statement: () => Promise<T>): Promise<T> {
    this.used++;
    return statement();
  }
}

/**
 * Repeats a bounded statement while it fills its batch and budget remains.
 * Returns the rows changed and whether the workspace is done with this step.
 */
async function drain(
  budget: Budget,
  batchSize: number,
  statement: () => D1PreparedStatement,
): Promise<{ changed: number; done: boolean }> {
  let changed = 0;
  while (budget.left) {
    const result = await budget.run(() => statement().run());
    changed += result.meta.changes;
    if (result.meta.changes < batchSize) return { changed, done: true };
  }
  return { changed, done: false };
}

/** One workspace: old rows first (their details go with them), then old details. */
async function sweepWorkspace(
  db: D1Database,
  workspaceUid: string,
  config: WorkspaceConfig,
  options: RetentionOptions,
  budget: Budget,
  report: RetentionReport,
): Promise<boolean> {
  const logsBefore = runIdBound(options.now - config.retention.logsDays * DAY_MS);
  const deleted = await drain(budget, options.batchSize, () =>
    db
      .prepare(
        `delete from hook_runs where id in (
           select id from hook_runs where workspace_uid = ?1 and id < ?2 order by id limit ?3)`,
      )
      .bind(workspaceUid, logsBefore, options.batchSize),
  );
  report.rowsDeleted += deleted.changed;
  if (!deleted.done) return false;

  const detailsBefore = runIdBound(options.now - config.retention.detailsDays * DAY_MS);
  const cleared = await drain(budget, options.batchSize, () =>
    db
      .prepare(
        `update hook_runs set details = null, details_captured_at = null where id in (
           select id from hook_runs
           where workspace_uid = ?1 and details is not null and id < ?2 order by id limit ?3)`,
      )
      .bind(workspaceUid, detailsBefore, options.batchSize),
  );
  report.detailsCleared += cleared.changed;
  return cleared.done;
}

async function saveCursor(db: D1Database, afterWorkspace: string, now: number): Promise<void> {
  await db
    .prepare(
      `insert into retention_cursors (name, after_workspace, updated_at) values (?1, ?2, ?3)
       on conflict (name) do update set after_workspace = excluded.after_workspace, updated_at = excluded.updated_at`,
    )
    .bind(SWEEP, afterWorkspace, new Date(now).toISOString())
    .run();
}

/**
 * Runs one bounded sweep. Workspaces are visited in uid order from where the
 * previous unfinished run stopped; after the last one the next run starts over.
 */
export async function runRetention(
  env: { DB: D1Database },
  options: Partial<RetentionOptions> = {},
): Promise<RetentionReport> {
  const opts: RetentionOptions = { ...RETENTION_DEFAULTS, now: Date.now(), ...options };
  const db = env.DB;
  const budget = new Budget(opts.maxStatements);
  const report: RetentionReport = {
    workspaces: 0,
    rowsDeleted: 0,
    detailsCleared: 0,
    statements: 0,
    complete: false,
  };

  const cursor = await budget.run(() =>
    db
      .prepare("select after_workspace from retention_cursors where name = ?1")
      .bind(SWEEP)
      .first<{ after_workspace: string }>(),
  );
  const start = cursor?.after_workspace ?? "";
  let after = start;
  let finished = false;
  sweep: while (budget.left) {
    const page = await budget.run(() =>
      db
        .prepare(
          `select w.uid as uid, c.document as document from workspaces w
           left join workspace_configs c on c.workspace_uid = w.uid
           where w.uid > ?1 order by w.uid limit ?2`,
        )
        .bind(after, opts.workspacePageSize)
        .all<{ uid: string; document: string | null }>(),
    );
    for (const row of page.results) {
      if (!(await sweepWorkspace(db, row.uid, configFromDocument(row.document), opts, budget, report)))
        break sweep;
      report.workspaces++;
      after = row.uid;
    }
    if (page.results.length < opts.workspacePageSize) {
      finished = true;
      break;
    }
  }
  const next = finished ? "" : after;
  // The cursor write is the one statement allowed past the budget: progress is never lost.
  if (next !== start) await budget.run(() => saveCursor(db, next, opts.now));
  report.statements = budget.used;
  report.complete = finished;
  return report;
}
