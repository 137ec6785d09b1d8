// Test-console runs of any target. Deploying a version requires at least one
// run of it that completed with a valid outcome (any action); `hook_*`
// failures do not count.
import { and, desc, eq } from "drizzle-orm";
import { database } from "../db/client";
import { hookPointerEvents, hookTestRuns } from "../db/schema-deploy";
import { newId } from "../ids";
import type { Json } from "../json";
import type { StepRun } from "../pipeline/adapter-steps";

export interface TestRunRecord {
  workspaceUid: string;
  target: string;
  generation: number;
  version: number;
  input: { arguments?: Json; result?: Json };
  run: StepRun;
  actor: string;
  keyId: string;
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
  input: Json;
  /** The console's answer (plain JSON data, stored as its JSON text). */
  report: object;
  ok: boolean;
  code: string | null;
  /** Whether this run makes its version deployable. */
  counts: boolean;
  actor: string;
  keyId: string;
}

export async function storeTestRun(db: D1Database, run: StoredTestRun): Promise<string> {
  const id = newId("run");
  await database(db)
    .insert(hookTestRuns)
    .values({
      id,
      workspaceUid: run.workspaceUid,
      target: run.target,
      generation: run.generation,
      version: run.version,
      stage: run.stage,
      input: JSON.stringify(run.input),
      report: JSON.stringify(run.report),
      ok: run.ok,
      code: run.code,
      counts: run.counts,
      actor: run.actor,
      keyId: run.keyId,
      createdAt: new Date().toISOString(),
    });
  return id;
}

/** A tool adapter's test run. */
export function recordTestRun(db: D1Database, record: TestRunRecord): Promise<string> {
  return storeTestRun(db, {
    workspaceUid: record.workspaceUid,
    target: record.target,
    generation: record.generation,
    version: record.version,
    stage: record.run.stage,
    input: record.input,
    report: record.run,
    ok: record.run.ok,
    code: record.run.ok ? null : record.run.code,
    counts: countsAsTested(record.run),
    actor: record.actor,
    keyId: record.keyId,
  });
}

export async function isTested(
  db: D1Database,
  workspaceUid: string,
  target: string,
  generation: number,
  version: number,
): Promise<boolean> {
  const row = await database(db)
    .select({ id: hookTestRuns.id })
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
  return row !== undefined;
}

/** Reset: the target's test runs and pointer moves go with its versions and revisions. */
export async function deleteTargetDeployHistory(
  db: D1Database,
  workspaceUid: string,
  target: string,
): Promise<void> {
  const d = database(db);
  await d.batch([
    d
      .delete(hookTestRuns)
      .where(and(eq(hookTestRuns.workspaceUid, workspaceUid), eq(hookTestRuns.target, target))),
    d
      .delete(hookPointerEvents)
      .where(and(eq(hookPointerEvents.workspaceUid, workspaceUid), eq(hookPointerEvents.target, target))),
  ]);
}
