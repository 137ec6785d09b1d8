// Test-console runs. Deploying a version requires at least one run of it that
// completed with a valid outcome (any action); `hook_*` failures do not count.
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

export async function recordTestRun(db: D1Database, record: TestRunRecord): Promise<string> {
  const id = newId("run");
  await database(db)
    .insert(hookTestRuns)
    .values({
      id,
      workspaceUid: record.workspaceUid,
      target: record.target,
      generation: record.generation,
      version: record.version,
      stage: record.run.stage,
      input: JSON.stringify(record.input),
      report: JSON.stringify(record.run),
      ok: record.run.ok,
      code: record.run.ok ? null : record.run.code,
      counts: countsAsTested(record.run),
      actor: record.actor,
      keyId: record.keyId,
      createdAt: new Date().toISOString(),
    });
  return id;
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
