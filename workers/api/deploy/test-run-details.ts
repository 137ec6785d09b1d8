// What a test-console run keeps as details: the same `RunDetails` a production
// run of the same code records (logs, reason and message, error, what it was
// given as `arguments`, what it produced as `result`), so one size bound and
// one capture policy cover both. Whether they are stored at all is decided by
// storeTestRun.
import type { Json } from "../../../shared/json";
import type { RunDetails } from "../../../shared/db/run-types";
import type { StepRun } from "../../../shared/adapter/steps";
import { stepRecord } from "../../../shared/adapter/records";
import type { InvocationReport, ModuleReturn } from "../../../shared/sandbox";

/** Who a tool adapter's test ran for: the names its records carry. */
export interface AdapterTestScope {
  workspaceUid: string;
  target: string;
  toolUid: string;
  toolName: string;
  requestId: string;
}

/**
 * A tool adapter stage's details, built by the gateway's own record builder.
 * Payloads are included here; the capture policy removes all details later
 * when it does not allow them.
 */
export function adapterTestDetails(
  scope: AdapterTestScope,
  run: StepRun,
  args: Json | undefined,
): RunDetails | null {
  const record = stepRecord(
    { ...scope, payloadCapture: true },
    run,
    "active",
    null,
    args === undefined ? {} : { arguments: args },
  );
  return record.details;
}

/** A workspace file function's details: its logs, its input, its return or its failure. */
export function fileTestDetails(input: Json, report: InvocationReport<ModuleReturn>): RunDetails {
  const { outcome } = report;
  return {
    ...(report.logs.length > 0 ? { logs: report.logs } : {}),
    arguments: input,
    ...(outcome.ok
      ? outcome.value.value === undefined
        ? {}
        : { result: outcome.value.value }
      : { error: `${outcome.error.code}: ${outcome.error.message}` }),
  };
}
