// The run records of a request hook: one per attempt. A failed attempt that
// was run again is `turn_error_retry`; the last says how the request ended.
// Every failure is a turn error (the hook's, not the provider's), which the
// metadata always keeps, whatever the detail policy stores.
import { fileTarget } from "../lifecycle/target";
import type { RunRecord } from "../logs";
import type { RunOutcome } from "../db/run-types";
import type { HookFailure, HookRun, RequestHookOutcome } from "./request-hook";

/** The record outcome of a failed last attempt, by its code. */
function failedOutcome(failure: HookFailure): RunOutcome {
  switch (failure.code) {
    case "request_hook_cancelled":
      return "cancelled";
    case "request_hook_approval_required":
      return "approval";
    case "request_hook_approval_refused":
      return "refused";
    default:
      return "error";
  }
}

function record(
  ids: { workspaceUid: string; loop: string; requestId: string },
  run: HookRun,
  ended: { outcome: RunOutcome; code: string | null; error?: string },
): RunRecord {
  return {
    workspaceUid: ids.workspaceUid,
    kind: "request_hook",
    target: fileTarget(run.path),
    toolUid: null,
    toolName: null,
    stage: "transform",
    channel: "active",
    outcome: ended.outcome,
    code: ended.code,
    revisionId: run.revisionId,
    requestId: ids.requestId,
    durationMs: run.durationMs,
    fuelUsed: run.fuelUsed,
    shadowDiffered: null,
    loop: ids.loop,
    plugin: null,
    turnError: ended.error !== undefined,
    attempt: run.attempt,
    at: new Date().toISOString(),
    details: {
      logs: run.logs,
      ...(ended.error === undefined ? {} : { error: `[Turn error] ${ended.error}` }),
    },
  };
}

/** The records of a hook that ran: its retried attempts, then its last. */
export function requestHookRecords(
  workspaceUid: string,
  loop: string,
  requestId: string,
  outcome: Exclude<RequestHookOutcome, { kind: "skipped" }>,
): RunRecord[] {
  const ids = { workspaceUid, loop, requestId };
  const retried = outcome.retried.map((failure) =>
    record(ids, failure.run, { outcome: "turn_error_retry", code: failure.code, error: failure.message }),
  );
  const last =
    outcome.kind === "transformed"
      ? record(ids, outcome.run, { outcome: "continue", code: null })
      : record(ids, outcome.run, {
          outcome: failedOutcome(outcome),
          // A refused approval is recorded under the approval's own code (approval_used, …).
          code: outcome.refusal?.code ?? outcome.code,
          error: outcome.message,
        });
  return [...retried, last];
}
