// Helpers for the log tests: run records as the gateway would write them.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { CaptureSettings } from "../../../shared/logs/writer";
import { recordRuns } from "../../../shared/logs/writer";
import type { RunRecord } from "../../../shared/db/run-types";

export const DAY = 86_400_000;

export const CAPTURE: CaptureSettings = { payloadCapture: true, detailPolicy: "capture" };
export const NO_CAPTURE: CaptureSettings = { payloadCapture: false, detailPolicy: "capture" };

let sequence = 0;

/** A tool-adapter `before` record with details, at `at` (default: now, spaced 1 ms apart). */
export function runRecord(ws: string, overrides: Partial<RunRecord> = {}): RunRecord {
  sequence++;
  return {
    workspaceUid: ws,
    kind: "tool_adapter",
    target: "tool:tool_a",
    toolUid: "tool_a",
    toolName: "echo",
    stage: "before",
    channel: "active",
    outcome: "continue",
    code: null,
    revisionId: "rev_1",
    requestId: `req_${sequence}`,
    durationMs: 0.4,
    fuelUsed: 1200,
    shadowDiffered: null,
    at: new Date(Date.now() - 60_000 + sequence).toISOString(),
    details: {
      message: "Preparing search",
      logs: [{ level: "info", message: "Preparing search", data: { query: "x" } }],
      arguments: { q: "x" },
    },
    ...overrides,
  };
}

export async function record(records: RunRecord[], capture: CaptureSettings = CAPTURE): Promise<void> {
  await recordRuns(env, records, capture);
}

export interface StoredRun {
  id: string;
  at: string;
  details: string | null;
  details_captured_at: string | null;
  request_id: string;
}

export async function storedRuns(ws: string): Promise<StoredRun[]> {
  const { results } = await env.DB.prepare(
    "select id, at, details, details_captured_at, request_id from hook_runs where workspace_uid = ? order by id",
  )
    .bind(ws)
    .all<StoredRun>();
  return results;
}

/** `"<status> <code>"` of a problem answer, for tests that check refusals only. */
export async function refusal(res: Response): Promise<string> {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; code: string }>();
  expect(body.status).toBe(res.status);
  return `${body.status} ${body.code}`;
}

/** NDJSON text as parsed lines. */
export function ndjsonLines<T>(text: string): T[] {
  return text
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line): T => JSON.parse(line));
}
