// Retention sweep over hook-run logs and test-console runs: per workspace,
// delete rows older than its `retention.logsDays` and clear details older than
// `retention.detailsDays`, in `hook_runs` and `hook_test_runs` alike.
// Bounded per run (statements × rows), resumable, idempotent, and safe beside
// inserts: every statement selects a bounded set of rows strictly older than a
// cutoff (by id, which leads with the run's time), never "delete then reinsert".
import { configFromDocument, type WorkspaceConfig } from "../config/schema";
import { TEST_RUN_ID_PREFIX } from "../db/schema-deploy";
import { idTimeBound } from "../ids";
import { RUN_ID_PREFIX } from "./writer";

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
  /** `hook_runs` rows deleted and details cleared. */
  rowsDeleted: number;
  detailsCleared: number;
  /** `hook_test_runs` rows deleted and details cleared. */
  testRunsDeleted: number;
  testDetailsCleared: number;
  statements: number;
  /** False when the statement budget ran out; the next run resumes where this one stopped. */
  complete: boolean;
}

type Counter = "rowsDeleted" | "detailsCleared" | "testRunsDeleted" | "testDetailsCleared";

/** One bounded, repeatable statement of a workspace's sweep. */
interface Step {
  table: "hook_runs" | "hook_test_runs";
  /** The table's id prefix: ids lead with the row's time. */
  prefix: string;
  action: "delete" | "clear";
  counter: Counter;
}

/**
 * A workspace's steps in order; the cursor remembers how many are done, so a
 * small budget still moves forward one step at a time. In each table old rows
 * go first (their details with them), then old details.
 */
const STEPS: readonly Step[] = [
  { table: "hook_runs", prefix: RUN_ID_PREFIX, action: "delete", counter: "rowsDeleted" },
  { table: "hook_runs", prefix: RUN_ID_PREFIX, action: "clear", counter: "detailsCleared" },
  { table: "hook_test_runs", prefix: TEST_RUN_ID_PREFIX, action: "delete", counter: "testRunsDeleted" },
  { table: "hook_test_runs", prefix: TEST_RUN_ID_PREFIX, action: "clear", counter: "testDetailsCleared" },
];

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

/** The statement of one step. Table names come from STEPS, never from input. */
function stepStatement(
  db: D1Database,
  step: Step,
  workspaceUid: string,
  config: WorkspaceConfig,
  options: RetentionOptions,
): D1PreparedStatement {
  const { table } = step;
  if (step.action === "delete") {
    const before = idTimeBound(step.prefix, options.now - config.retention.logsDays * DAY_MS);
    return db
      .prepare(
        `delete from ${table} where id in (
           select id from ${table} where workspace_uid = ?1 and id < ?2 order by id limit ?3)`,
      )
      .bind(workspaceUid, before, options.batchSize);
  }
  const before = idTimeBound(step.prefix, options.now - config.retention.detailsDays * DAY_MS);
  return db
    .prepare(
      `update ${table} set details = null, details_captured_at = null where id in (
         select id from ${table}
         where workspace_uid = ?1 and details is not null and id < ?2 order by id limit ?3)`,
    )
    .bind(workspaceUid, before, options.batchSize);
}

/** One workspace from step `from` on; returns how many of its steps are done. */
async function sweepWorkspace(
  db: D1Database,
  workspaceUid: string,
  config: WorkspaceConfig,
  from: number,
  options: RetentionOptions,
  budget: Budget,
  report: RetentionReport,
): Promise<number> {
  for (let index = from; index < STEPS.length; index++) {
    const step = STEPS[index];
    if (step === undefined) break;
    const drained = await drain(budget, options.batchSize, () =>
      stepStatement(db, step, workspaceUid, config, options),
    );
    report[step.counter] += drained.changed;
    if (!drained.done) return index;
  }
  return STEPS.length;
}

async function saveCursor(
  db: D1Database,
  afterWorkspace: string,
  stepsDone: number,
  now: number,
): Promise<void> {
  await db
    .prepare(
      `insert into retention_cursors (name, after_workspace, steps_done, updated_at) values (?1, ?2, ?3, ?4)
       on conflict (name) do update set
         after_workspace = excluded.after_workspace, steps_done = excluded.steps_done, updated_at = excluded.updated_at`,
    )
    .bind(SWEEP, afterWorkspace, stepsDone, new Date(now).toISOString())
    .run();
}

/**
 * Runs one bounded sweep. Workspaces are visited in uid order from where the
 * previous unfinished run stopped (the workspace, and the step within it);
 * after the last one the next run starts over.
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
    testRunsDeleted: 0,
    testDetailsCleared: 0,
    statements: 0,
    complete: false,
  };

  const cursor = await budget.run(() =>
    db
      .prepare("select after_workspace, steps_done from retention_cursors where name = ?1")
      .bind(SWEEP)
      .first<{ after_workspace: string; steps_done: number }>(),
  );
  const start = { after: cursor?.after_workspace ?? "", steps: cursor?.steps_done ?? 0 };
  let after = start.after;
  // Steps already done in the next workspace: only the first one visited can have any.
  let steps = start.steps;
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
      steps = await sweepWorkspace(
        db,
        row.uid,
        configFromDocument(row.document),
        steps,
        opts,
        budget,
        report,
      );
      if (steps < STEPS.length) break sweep;
      report.workspaces++;
      after = row.uid;
      steps = 0;
    }
    if (page.results.length < opts.workspacePageSize) {
      finished = true;
      break;
    }
  }
  const next = finished ? { after: "", steps: 0 } : { after, steps };
  // The cursor write is the one statement allowed past the budget: progress is never lost.
  if (next.after !== start.after || next.steps !== start.steps) {
    await budget.run(() => saveCursor(db, next.after, next.steps, opts.now));
  }
  report.statements = budget.used;
  report.complete = finished;
  return report;
}
