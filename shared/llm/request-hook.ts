// The request hook: the
// workspace's `pre_llm_hook` runs `transform({ request, loop })` from a
// deployed `lib/` file in a fresh sandbox and must return a complete,
// valid replacement request. It fails closed: every failure is a tagged
// result the callers turn into `request_hook_failed`, and the original
// request is never what gets sent.
import { readWorkspaceConfig } from "../config";
import {
  effectiveHookTimeoutMs,
  hookAppliesToLoop,
  parseHookSource,
  type PreLlmHookConfig,
} from "../config/pre-llm-hook";
import type { WorkspaceConfig } from "../config/schema";
import { loadDeployedFile } from "../deploy/deployed-file";
import { exportPath } from "../files/exports";
import { fileTarget } from "../lifecycle/target";
import type { RunRecord } from "../logs";
import { runModuleExport, type SandboxErrorCode } from "../sandbox";
import type { LogEntry } from "../sandbox/types";
import {
  FUEL_PER_MS,
  hostCallsFor,
  NAMESPACE,
  REQUEST_HOOK_EXTENSIONS,
  type HostContext,
} from "./host-calls";
import { validateNeutralRequest, type NeutralRequest } from "./request";

/** Fuel per millisecond of `timeout_ms`: see the calibration note in docs/request-hooks.md. */
export { FUEL_PER_MS } from "./host-calls";

export type RequestHookCode =
  | "request_hook_source_missing"
  | "request_hook_function_missing"
  | "request_hook_invalid_return"
  | "request_hook_timeout"
  | "request_hook_error";

export interface HookRun {
  revisionId: string | null;
  path: string;
  exportName: string;
  durationMs: number;
  fuelUsed: number;
  logs: LogEntry[];
}

export type RequestHookOutcome =
  /** No hook applies to this loop (none configured, or not targeted): the request goes as given. */
  | { kind: "skipped" }
  | { kind: "transformed"; request: NeutralRequest; run: HookRun }
  | { kind: "failed"; code: RequestHookCode; message: string; run: HookRun };

export interface RequestHookInput {
  workspaceUid: string;
  loop: string;
  request: NeutralRequest;
  requestId: string;
  /** Direct model calls made from inside a hook, and history compaction, never run it. */
  bypass?: boolean;
  /** The workspace config the caller already reads (so hook and forwarding see one config); read here when absent. */
  config?: Promise<WorkspaceConfig>;
}

/** Sandbox failures with a code of their own; everything else is request_hook_error. */
const SANDBOX_CODES: Partial<Record<SandboxErrorCode, RequestHookCode>> = {
  hook_timeout: "request_hook_timeout",
  hook_invalid_return: "request_hook_invalid_return",
  hook_output_too_large: "request_hook_invalid_return",
};

type HookEnv = Pick<Env, "DB" | "CODE" | "WORKSPACE" | "RAYRUN_BOOTSTRAP_KEY">;

/** The hook that applies to `loop` in `config`, or null. */
export function applicableHook(config: WorkspaceConfig, loop: string): PreLlmHookConfig | null {
  const hook = config.pre_llm_hook;
  return hook !== undefined && hookAppliesToLoop(hook, loop) ? hook : null;
}

export async function runRequestHook(
  env: HookEnv,
  input: RequestHookInput,
  host: Omit<HostContext, "config" | "deadline" | "expired">,
): Promise<RequestHookOutcome> {
  if (input.bypass) return { kind: "skipped" };
  const config = await (input.config ?? readWorkspaceConfig(env.DB, input.workspaceUid));
  const hook = applicableHook(config, input.loop);
  if (hook === null) return { kind: "skipped" };
  const { path, exportName } = parseHookSource(hook.source);
  const started = Date.now();
  const run: HookRun = { revisionId: null, path, exportName, durationMs: 0, fuelUsed: 0, logs: [] };
  const failed = (code: RequestHookCode, message: string): RequestHookOutcome => {
    run.durationMs = Date.now() - started;
    return { kind: "failed", code, message, run };
  };

  const file = await loadDeployedFile(env, input.workspaceUid, path);
  if (file === null || file.kind !== "lib") {
    return failed("request_hook_source_missing", `${path} has no active deployment.`);
  }
  run.revisionId = file.revisionId;
  if (!file.exports.includes(exportName)) {
    return failed(
      "request_hook_function_missing",
      `${path} (revision ${file.revisionId}) exports no function ${exportName}.`,
    );
  }

  const timeoutMs = effectiveHookTimeoutMs(hook, config);
  // The hook's time starts when it does: loading its revision is ours.
  const hookStarted = Date.now();
  const deadline = hookStarted + timeoutMs;
  const expired = { value: false };
  // CPU work is bounded by fuel (Workers freeze clocks while code runs): the
  // top level and the call each get the budget of the whole timeout.
  const fuel = timeoutMs * FUEL_PER_MS;
  const report = await runModuleExport({
    code: file.code,
    exportPath: exportPath("lib", exportName),
    input: { request: input.request, loop: { name: input.loop } },
    nowMs: hookStarted,
    seed: input.requestId,
    extensions: REQUEST_HOOK_EXTENSIONS,
    hostCalls: hostCallsFor({ ...host, config, deadline, expired }),
    fuel,
    moduleFuel: fuel,
  });
  run.durationMs = Date.now() - started;
  run.fuelUsed = report.fuelUsed;
  run.logs = report.logs;
  const { outcome } = report;
  if (!outcome.ok && outcome.error.code === "hook_timeout") {
    return failed(
      "request_hook_timeout",
      `The request hook ran out of time (${timeoutMs} ms): ${outcome.error.message}.`,
    );
  }
  // Awaited host calls count against the wall clock: a hook whose capability
  // was cut off by the deadline timed out, whatever it did afterwards (even
  // catching the rejection and returning the original request).
  if (expired.value || Date.now() > deadline) {
    return failed(
      "request_hook_timeout",
      `The request hook ran longer than its ${timeoutMs} ms (time awaiting ${NAMESPACE}.* calls counts).`,
    );
  }
  if (!outcome.ok) {
    const { code, message } = outcome.error;
    return failed(SANDBOX_CODES[code] ?? "request_hook_error", `${code}: ${message}`);
  }
  const value = outcome.value.value;
  const checked = validateNeutralRequest(value);
  if (!checked.ok) {
    const problems = checked.error.map((p) => `${p.path || "/"}: ${p.message}`).join("; ");
    const hint =
      value !== null && typeof value === "object" && "request" in value && "loop" in value
        ? " (return the replacement request itself, not { request, loop })"
        : "";
    return failed("request_hook_invalid_return", `The hook returned an invalid request${hint}: ${problems}`);
  }
  return { kind: "transformed", request: checked.value, run };
}

/** The log record of a hook run. */
export function requestHookRecord(
  workspaceUid: string,
  loop: string,
  requestId: string,
  outcome: Exclude<RequestHookOutcome, { kind: "skipped" }>,
): RunRecord {
  const { run } = outcome;
  return {
    workspaceUid,
    kind: "request_hook",
    target: fileTarget(run.path),
    toolUid: null,
    toolName: null,
    stage: "transform",
    channel: "active",
    outcome: outcome.kind === "transformed" ? "continue" : "error",
    code: outcome.kind === "transformed" ? null : outcome.code,
    revisionId: run.revisionId,
    requestId,
    durationMs: run.durationMs,
    fuelUsed: run.fuelUsed,
    shadowDiffered: null,
    loop,
    plugin: null,
    at: new Date().toISOString(),
    details: {
      logs: run.logs,
      ...(outcome.kind === "failed" ? { error: `[Turn error] ${outcome.message}` } : {}),
    },
  };
}
