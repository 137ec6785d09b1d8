// Test-console runs of any target. Deploying a version requires at least one
// run of it that completed with a valid outcome (any action); `hook_*`
// failures do not count. A run's row is metadata; its details (what it was
// given, logs, outcome) are stored only under the same capture policy as
// production run records, and the retention sweep expires both.
import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { hookPointerEvents, hookTestRuns, TEST_RUN_ID_PREFIX } from "../../../shared/db/schema-deploy";
import { newId } from "../../../shared/ids";
import type { Json } from "../../../shared/json";
import { boundDetails } from "../../../shared/logs/details";
import type { RunDetails } from "../../../shared/db/run-types";
import { capturesDetails, type CaptureSettings } from "../../../shared/logs/writer";
import type { StepRun } from "../../../shared/adapter/steps";
import { adapterTestDetails, type AdapterTestScope } from "./test-run-details";

export interface TestRunRecord {
  scope: AdapterTestScope;
  generation: number;
  version: number;
  /** The arguments the test gave (a mock upstream result is input only: production records do not keep it either). */
  arguments?: Json;
  run: StepRun;
  actor: string;
  keyId: string;
  /** The tool's service payload capture and the workspace's detail policy. */
  capture: CaptureSettings;
}

/**
 * A run counts as a test when the stage ran and ended with a valid outcome of any
 * action (a reject is a valid outcome). Sandbox failures and outcomes that break
 * the tool's schemas do not count.
 */
export const countsAsTested = (run: StepRun): boolean => run.ran && run.ok;

/** One test-console run of any target, as stored. */
export interface StoredTestRun {
  workspaceUid: string;
  target: string;
  generation: number;
  version: number;
  /** What ran: an adapter stage, a lib export or a plugin hook. */
  stage: string;
  ok: boolean;
  code: string | null;
  /** Whether this run makes its version deployable. */
  counts: boolean;
  actor: string;
  keyId: string;
  /** The run's details as a production record would carry them; kept only where `capture` allows. */
  details: RunDetails | null;
  capture: CaptureSettings;
  /** The run's time in epoch ms (its id and `created_at`); now when absent. */
  at?: number;
}

export async function storeTestRun(db: Database, run: StoredTestRun): Promise<string> {
  const at = run.at ?? Date.now();
  const id = newId(TEST_RUN_ID_PREFIX, at);
  const details = capturesDetails(run.capture) && run.details !== null ? boundDetails(run.details) : null;
  await db.insert(hookTestRuns).values({
    id,
    workspaceUid: run.workspaceUid,
    target: run.target,
    generation: run.generation,
    version: run.version,
    stage: run.stage,
    ok: run.ok,
    code: run.code,
    counts: run.counts,
    actor: run.actor,
    keyId: run.keyId,
    createdAt: new Date(at).toISOString(),
    details,
    detailsCapturedAt: details === null ? null : new Date().toISOString(),
  });
  return id;
}

/** A tool adapter's test run. */
export function recordTestRun(db: Database, record: TestRunRecord): Promise<string> {
  const { scope, run } = record;
  return storeTestRun(db, {
    workspaceUid: scope.workspaceUid,
    target: scope.target,
    generation: record.generation,
    version: record.version,
    stage: run.stage,
    ok: run.ok,
    code: run.ok ? null : run.error.code,
    counts: countsAsTested(run),
    actor: record.actor,
    keyId: record.keyId,
    details: adapterTestDetails(scope, run, record.arguments),
    capture: record.capture,
  });
}

/** The newest run of a version that makes it deployable, or undefined when it has none. */
export function lastPassingRun(
  db: Database,
  workspaceUid: string,
  target: string,
  generation: number,
  version: number,
) {
  return db
    .select({
      id: hookTestRuns.id,
      at: hookTestRuns.createdAt,
      stage: hookTestRuns.stage,
      actor: hookTestRuns.actor,
    })
    .from(hookTestRuns)
    .where(
      and(
        eq(hookTestRuns.workspaceUid, workspaceUid),
        eq(hookTestRuns.target, target),
        eq(hookTestRuns.generation, generation),
        eq(hookTestRuns.version, version),
        eq(hookTestRuns.counts, true),
      ),
    )
    .orderBy(desc(hookTestRuns.id))
    .get();
}

export async function isTested(
  db: Database,
  workspaceUid: string,
  target: string,
  generation: number,
  version: number,
): Promise<boolean> {
  return (await lastPassingRun(db, workspaceUid, target, generation, version)) !== undefined;
}

/** Reset: the target's test runs and pointer moves go with its versions and revisions. */
export async function deleteTargetDeployHistory(
  db: Database,
  workspaceUid: string,
  target: string,
): Promise<void> {
  await db.batch([
    db
      .delete(hookTestRuns)
      .where(and(eq(hookTestRuns.workspaceUid, workspaceUid), eq(hookTestRuns.target, target))),
    db
      .delete(hookPointerEvents)
      .where(and(eq(hookPointerEvents.workspaceUid, workspaceUid), eq(hookPointerEvents.target, target))),
  ]);
}
