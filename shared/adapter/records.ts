// Hook-run records of the tool-call path (one per stage run, active or
// shadow, and one per pipeline refusal), handed to the log store after the
// response: never awaited on the response path.
import { readWorkspaceConfig, type WorkspaceConfig } from "../config";
import type { Json } from "../json";
import {
  deferRuns,
  recordRuns,
  type CaptureSettings,
  type RunChannel,
  type RunDetails,
  type RunMode,
  type RunOutcome,
  type RunRecord,
  type RunStage,
} from "../logs";
import type { StepRun } from "./steps";

export interface RecordScope {
  workspaceUid: string;
  target: string;
  toolUid: string;
  toolName: string;
  requestId: string;
  /** The service's payload capture flag: arguments and results go into details only when on. */
  payloadCapture: boolean;
  /** How the call was made; every record the call writes carries it. Absent: `direct`. */
  mode?: RunMode;
  /**
   * The workspace config the call ran under (the isolate's copy at its
   * lease's catalog version); absent: read from D1 when the records are written.
   */
  config?: () => Promise<Pick<WorkspaceConfig, "detailPolicy">>;
}

/** What writing a call's records needs of its scope. */
type WriteScope = Pick<RecordScope, "workspaceUid" | "payloadCapture" | "mode" | "config">;

/** The records stamped with the call's mode (plugins' records are built without a scope). */
const inMode = (records: readonly RunRecord[], mode: RunMode | undefined): readonly RunRecord[] =>
  mode === undefined ? records : records.map((record) => ({ ...record, mode }));

export interface RecordInput {
  stage: RunStage;
  channel: RunChannel;
  outcome: RunOutcome;
  code: string | null;
  revisionId: string | null;
  durationMs?: number;
  fuelUsed?: number;
  shadowDiffered?: boolean | null;
  details?: RunDetails;
  /** Captured only under payload capture. */
  arguments?: Json;
  result?: Json;
}

export function runRecord(scope: RecordScope, input: RecordInput): RunRecord {
  const details: RunDetails = { ...input.details };
  if (scope.payloadCapture) {
    if (input.arguments !== undefined) details.arguments = input.arguments;
    if (input.result !== undefined) details.result = input.result;
  }
  return {
    workspaceUid: scope.workspaceUid,
    kind: "tool_adapter",
    target: scope.target,
    toolUid: scope.toolUid,
    toolName: scope.toolName,
    stage: input.stage,
    channel: input.channel,
    outcome: input.outcome,
    code: input.code,
    revisionId: input.revisionId,
    requestId: scope.requestId,
    durationMs: input.durationMs ?? 0,
    fuelUsed: input.fuelUsed ?? 0,
    shadowDiffered: input.shadowDiffered ?? null,
    at: new Date().toISOString(),
    details: Object.keys(details).length === 0 ? null : details,
  };
}

/** Outcome, code and details of one adapter step, as a record says them. */
export function stepRecord(
  scope: RecordScope,
  step: StepRun,
  channel: RunChannel,
  revisionId: string | null,
  extra: { shadowDiffered?: boolean | null; arguments?: Json } = {},
): RunRecord {
  const base = {
    stage: step.stage,
    channel,
    revisionId,
    durationMs: step.durationMs,
    fuelUsed: step.fuelUsed,
    shadowDiffered: extra.shadowDiffered ?? null,
    ...(extra.arguments === undefined ? {} : { arguments: extra.arguments }),
  };
  const logs = step.logs.length > 0 ? { logs: step.logs } : {};
  if (!step.ok) {
    return runRecord(scope, {
      ...base,
      outcome: "error",
      code: step.error.code,
      details: { ...logs, error: step.error.message, message: step.error.message },
    });
  }
  const outcome = step.value;
  if (outcome.action === "continue") {
    return runRecord(scope, {
      ...base,
      outcome: "continue",
      code: null,
      details: logs,
      result: outcome.arguments,
    });
  }
  if (outcome.action === "approval") {
    return runRecord(scope, {
      ...base,
      outcome: "approval",
      code: null,
      details: { ...logs, reason: outcome.reason },
      result: outcome.arguments,
    });
  }
  if (outcome.action === "return") {
    return runRecord(scope, {
      ...base,
      outcome: "return",
      code: null,
      details: logs,
      result: outcome.result,
    });
  }
  return runRecord(scope, {
    ...base,
    outcome: outcome.action,
    code: null,
    details: { ...logs, reason: outcome.reason, message: outcome.message },
  });
}

/**
 * Writes records after the response. Details need the workspace's detail policy,
 * so under payload capture the config is read inside `waitUntil` too.
 */
export function deferRecords(
  ctx: Pick<ExecutionContext, "waitUntil">,
  env: { DB: D1Database; LOG_BATCH_MS?: string },
  scope: WriteScope,
  records: readonly RunRecord[],
): void {
  if (records.length === 0) return;
  deferRuns(ctx, env, inMode(records, scope.mode), () => captureSettings(env, scope));
}

/** Whether details are kept: the service's payload capture, then (only when on) the workspace's policy. */
async function captureSettings(
  env: { DB: D1Database },
  scope: Pick<RecordScope, "workspaceUid" | "payloadCapture" | "config">,
): Promise<CaptureSettings> {
  if (!scope.payloadCapture) return { payloadCapture: false, detailPolicy: "none" };
  const { detailPolicy } = await (scope.config?.() ?? readWorkspaceConfig(env.DB, scope.workspaceUid));
  return { payloadCapture: true, detailPolicy };
}

/** Writes records now (for work that already runs in `waitUntil`, like shadow runs). */
export async function writeRecords(
  env: { DB: D1Database },
  scope: WriteScope,
  records: readonly RunRecord[],
): Promise<void> {
  if (records.length === 0) return;
  await recordRuns(env, inMode(records, scope.mode), await captureSettings(env, scope));
}

/**
 * One call's run records, gathered in the order its steps ran and handed to
 * the log store once, after the response (`flush`).
 */
export class Recorder {
  readonly #runs: RunRecord[] = [];

  constructor(private readonly scope: WriteScope) {}

  record(run: RunRecord): void {
    this.#runs.push(run);
  }

  recordAll(runs: readonly RunRecord[]): void {
    for (const run of runs) this.#runs.push(run);
  }

  /** Where the records of what runs next begin (for `supersede`). */
  mark(): number {
    return this.#runs.length;
  }

  /**
   * Marks the records from `from` on as superseded: their stages ran under a
   * revision the dispatch recheck found no longer active, so the call ran its
   * stages again and these did not decide anything. Kept rather than dropped
   * because they spent time and fuel; their code still says how they ended.
   */
  supersede(from: number): void {
    for (let index = from; index < this.#runs.length; index++) {
      const run = this.#runs[index];
      if (run !== undefined) this.#runs[index] = { ...run, outcome: "superseded" };
    }
  }

  flush(ctx: Pick<ExecutionContext, "waitUntil">, env: { DB: D1Database; LOG_BATCH_MS?: string }): void {
    deferRecords(ctx, env, this.scope, this.#runs);
  }
}
