// Shadow runs: the same
// call's stages on the shadow revision, after the response (`waitUntil`),
// best effort. They never change what the client got and never call the
// upstream: the shadow `after` gets the live upstream result of the active call.
// Each shadow record says whether it differed from active (action, transformed
// arguments, result — compared as canonical JSON).
import { canonicalJson } from "../../../shared/canonical-json";
import type { Json } from "../../../shared/json";
import { ok } from "../../../shared/result";
import type { Pointers } from "../../../shared/lifecycle/pointers";
import type { RunRecord } from "../../../shared/logs";
import type { StepRun } from "../../../shared/adapter/steps";
import { runRecord, stepRecord, writeRecords, type RecordScope } from "../../../shared/adapter/records";
import { loadRevision, type LoadedRevision } from "../caches/revision-cache";
import { comparable, runAfter, runBefore, type Comparable, type StageScope } from "./stages";

/** What the active side of a call did, for comparison. */
export interface ActiveTrace {
  publicArguments: Json;
  /** The active `before` (or its pass-through); null when it did not run this call (approved repeat). */
  before: Comparable | null;
  /** The active `after` (or its pass-through); null when nothing was dispatched successfully. */
  after: Comparable | null;
  /** `after`'s input from the live upstream result; null when there was none. */
  liveResult: Json | null;
}

export interface ShadowHost extends StageScope {
  env: { DB: D1Database; CODE: R2Bucket };
  ctx: Pick<ExecutionContext, "waitUntil">;
  target: string;
  scope: RecordScope;
}

/** Test seams; never set in production. */
export const shadowFaults: { beforeRun?: () => Promise<void> } = {};

export const differs = (a: Comparable | null, b: Comparable | null): boolean =>
  canonicalJson(a) !== canonicalJson(b);

/** Starts the shadow run of a call (if a shadow revision is deployed) after the response. */
export function scheduleShadow(host: ShadowHost, pointers: Pointers, trace: ActiveTrace): void {
  const shadowId = pointers.shadow?.revisionId;
  if (shadowId === undefined) return;
  if (trace.before === null && trace.liveResult === null) return;
  const run = (async () => {
    await shadowFaults.beforeRun?.();
    await runShadow(host, shadowId, trace);
  })().catch((error: unknown) => {
    console.error("shadow run failed", { revision: shadowId, error: String(error) });
  });
  host.ctx.waitUntil(run);
}

/** `after` of a revision without one: the live result passes through. */
const passedAfter = (live: Json): StepRun => ({
  ...ok({ action: "return", result: live }),
  stage: "after",
  ran: false,
  logs: [],
  fuelUsed: 0,
  durationMs: 0,
});

async function runShadow(host: ShadowHost, shadowId: string, trace: ActiveTrace): Promise<void> {
  const revision = await loadRevision(host.env, host.req.workspaceUid, host.target, shadowId);
  if (revision === null) return;
  const records: RunRecord[] = [];
  if (trace.before !== null) records.push(await shadowBefore(host, revision, trace, trace.before));
  if (trace.liveResult !== null && trace.after !== null) {
    records.push(await shadowAfter(host, revision, trace.liveResult, trace.after));
  }
  await writeRecords(host.env, host.scope, records);
}

async function shadowBefore(
  host: ShadowHost,
  revision: LoadedRevision,
  trace: ActiveTrace,
  active: Comparable,
): Promise<RunRecord> {
  const step = await runBefore(host, revision, trace.publicArguments);
  const differed = differs(comparable(step), active);
  if (step.ran || !step.ok) {
    return stepRecord(host.scope, step, "shadow", revision.id, {
      shadowDiffered: differed,
      arguments: trace.publicArguments,
    });
  }
  // No `before` in the shadow revision: the arguments passed through.
  return runRecord(host.scope, {
    stage: "before",
    channel: "shadow",
    outcome: "passed",
    code: null,
    revisionId: revision.id,
    shadowDiffered: differed,
    result: step.value.action === "continue" ? step.value.arguments : null,
  });
}

async function shadowAfter(
  host: ShadowHost,
  revision: LoadedRevision,
  live: Json,
  active: Comparable,
): Promise<RunRecord> {
  const step = (await runAfter(host, revision, live)) ?? passedAfter(live);
  const differed = differs(comparable(step), active);
  if (step.ran || !step.ok)
    return stepRecord(host.scope, step, "shadow", revision.id, { shadowDiffered: differed });
  return runRecord(host.scope, {
    stage: "after",
    channel: "shadow",
    outcome: "passed",
    code: null,
    revisionId: revision.id,
    shadowDiffered: differed,
    result: live,
  });
}
