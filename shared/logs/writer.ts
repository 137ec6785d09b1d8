// The hook-run log writer. Callers on a response path use `deferRuns`, which
// hands the write to `waitUntil`; nothing here ever throws into a response.
import type { DetailPolicy } from "../config/schema";
import { newId } from "../ids";
import { KNOBS } from "../knobs";
import { RunBatcher } from "./batch";
import { insertRows, ROWS_PER_INSERT, type RunRow } from "./insert";
import { boundDetails } from "./details";
import type { RunDetails, RunRecord } from "../db/run-types";

/** Whether a batch of records may keep its details: both must allow it. */
export interface CaptureSettings {
  /** The service's payload capture flag (`services.payload_capture`). */
  payloadCapture: boolean;
  /** The workspace's `detailPolicy` (`readWorkspaceConfig(…).detailPolicy`). */
  detailPolicy: DetailPolicy;
}

export const RUN_ID_PREFIX = "log";

export const capturesDetails = (capture: CaptureSettings): boolean =>
  capture.payloadCapture && capture.detailPolicy === "capture";

/** The run's time as epoch ms; a missing or unparseable `at` becomes the write time. */
function runTime(at: string, now: number): number {
  const ms = Date.parse(at);
  return Number.isFinite(ms) && ms >= 0 ? ms : now;
}

function toRow(record: RunRecord, keepDetails: boolean, now: number): RunRow {
  const ms = runTime(record.at, now);
  const details: RunDetails | null =
    keepDetails && record.details !== null ? boundDetails(record.details) : null;
  return {
    id: newId(RUN_ID_PREFIX, ms),
    workspaceUid: record.workspaceUid,
    kind: record.kind,
    target: record.target,
    toolUid: record.toolUid,
    toolName: record.toolName,
    stage: record.stage,
    channel: record.channel,
    outcome: record.outcome,
    code: record.code,
    revisionId: record.revisionId,
    requestId: record.requestId,
    durationMs: Number.isFinite(record.durationMs) ? record.durationMs : 0,
    fuelUsed: Number.isFinite(record.fuelUsed) ? Math.round(record.fuelUsed) : 0,
    shadowDiffered: record.shadowDiffered,
    loop: record.loop ?? null,
    plugin: record.plugin ?? null,
    mode: record.mode ?? "direct",
    turnError: record.turnError ?? null,
    attempt: record.attempt ?? null,
    at: new Date(ms).toISOString(),
    details,
    detailsCapturedAt: details === null ? null : new Date(now).toISOString(),
  };
}

/** Table rows for records, details kept only where `capture` allows. */
export function toRows(records: readonly RunRecord[], capture: CaptureSettings): RunRow[] {
  const now = Date.now();
  const keep = capturesDetails(capture);
  return records.map((record) => toRow(record, keep, now));
}

/**
 * Stores run records now: metadata always, `details` only when `capture`
 * allows it (bounded to KNOBS.logDetailsBytes). All records go in one D1 batch
 * (atomic), chunked for D1's bound-parameter limit. Rejects when the write fails.
 */
export async function recordRuns(
  env: { DB: D1Database },
  records: readonly RunRecord[],
  capture: CaptureSettings,
): Promise<void> {
  if (records.length === 0) return;
  await insertRows(env.DB, toRows(records, capture), ROWS_PER_INSERT);
}

const batcher = new RunBatcher({
  delayMs: KNOBS.logBatchDelayMs,
  maxRows: KNOBS.logBatchMaxRows,
  rowsPerInsert: ROWS_PER_INSERT,
});

/** The batch delay for this Worker: its `LOG_BATCH_MS` var when set to a number, else the default. */
function batchDelay(env: { LOG_BATCH_MS?: string }): number {
  // An unset or empty var is the default, not Number("") = 0.
  const ms = env.LOG_BATCH_MS ? Number(env.LOG_BATCH_MS) : Number.NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : KNOBS.logBatchDelayMs;
}

/**
 * Records runs after the response: the records join the isolate's open batch
 * (batch.ts), whose write is held in `ctx.waitUntil`; their rows (ids, times,
 * bounded details) and any settings read are made when the batch is written,
 * so the response path only queues them. A failure is logged there, never
 * thrown to the caller.
 */
export function deferRuns(
  ctx: Pick<ExecutionContext, "waitUntil">,
  env: { DB: D1Database; LOG_BATCH_MS?: string },
  records: readonly RunRecord[],
  /** A function when the settings need a read of their own (called after the response too). */
  capture: CaptureSettings | (() => Promise<CaptureSettings>),
): void {
  if (records.length === 0) return;
  const rows = async () => toRows(records, typeof capture === "function" ? await capture() : capture);
  ctx.waitUntil(batcher.addLater(env.DB, records.length, rows, batchDelay(env)));
}
