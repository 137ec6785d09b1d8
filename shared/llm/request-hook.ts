// The request hook: the
// workspace's `pre_llm_hook` runs `transform({ request, loop })` from a
// deployed `lib/` file in a fresh sandbox and must return a complete,
// valid replacement request. It fails closed: every failure is a tagged
// result the callers turn into `request_hook_failed`, and the original
// request is never what gets sent.
import { type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { readWorkspaceConfig } from "../config";
import {
  effectiveHookTimeoutMs,
  hookAppliesToLoop,
  parseHookSource,
  type PreLlmHookConfig,
} from "../config/pre-llm-hook";
import type { WorkspaceConfig } from "../config/schema";
import { loadDeployedFile, loadPointedFile } from "../deploy/deployed-file";
import type { Pointers } from "../lifecycle/pointers";
import { exportPath } from "../files/exports";
import { loopPolicy, structuralRetries } from "../config/loops";
import { runModuleExport, type SandboxError } from "../sandbox";
import type { LogEntry } from "../sandbox/types";
import { FUEL_PER_MS, hostCallsFor, type HostContext } from "./host-calls";
import { NAMESPACE, REQUEST_HOOK_EXTENSIONS } from "./hook-extensions";
import { HostApprovalGate, type HostApprovalRefusal, type HostApprovalRequest } from "./host-approvals";
import { validateNeutralRequest, type NeutralRequest } from "./request";

/** Fuel per millisecond of `timeout_ms`: see the calibration note in docs/request-hooks.md. */
export { FUEL_PER_MS } from "./host-calls";

export type RequestHookCode =
  | "request_hook_source_missing"
  | "request_hook_function_missing"
  | "request_hook_invalid_return"
  | "request_hook_timeout"
  | "request_hook_error"
  | "request_hook_cancelled"
  | "request_hook_approval_required"
  | "request_hook_approval_refused";

export interface HookRun {
  revisionId: string | null;
  path: string;
  exportName: string;
  /** 1 for the first run; structural retries count on. */
  attempt: number;
  durationMs: number;
  fuelUsed: number;
  logs: LogEntry[];
}

export interface HookFailure {
  kind: "failed";
  code: RequestHookCode;
  message: string;
  run: HookRun;
  /** The approval this run asked for (`request_hook_approval_required`). */
  approval?: HostApprovalRequest;
  /** Why the repeat's approval was refused (`request_hook_approval_refused`). */
  refusal?: HostApprovalRefusal;
  /** A failure that may not repeat: a host call cut off by the time limit, or the engine's own fault. */
  structural?: true;
}

export type RequestHookOutcome =
  /** No hook applies to this loop (none configured, or not targeted): the request goes as given. */
  | { kind: "skipped" }
  | { kind: "transformed"; request: NeutralRequest; run: HookRun; retried: HookFailure[] }
  | (HookFailure & { retried: HookFailure[] });

export interface RequestHookInput {
  workspaceUid: string;
  loop: string;
  request: NeutralRequest;
  requestId: string;
  /** Direct model calls made from inside a hook, and history compaction, never run it. */
  bypass?: boolean;
  /** The workspace config the caller already reads (so hook and forwarding see one config); read here when absent. */
  config?: Promise<WorkspaceConfig>;
  /** The caller's abort (the client went away): the hook stops and nothing is sent. */
  signal?: AbortSignal;
  /**
   * The hook file's pointers, when the caller read them from the
   * WorkspaceObject in this request (with its other per-call state): the first
   * attempt runs what they name; a retry asks the object again.
   */
  pointers?: Pointers;
  /** Who calls, for approvals on host calls, and the approval id a repeated request carries. */
  caller?: { keyId: string; actor: string; approvalId: string | null };
}

/** Sandbox failures with a code of their own; everything else is request_hook_error. */
const SANDBOX_CODES: Partial<Record<SandboxError["code"], RequestHookCode>> = {
  hook_timeout: "request_hook_timeout",
  hook_invalid_return: "request_hook_invalid_return",
  hook_output_too_large: "request_hook_invalid_return",
};

type HookEnv = Pick<Env, "DB" | "CODE" | "RAYRUN_BOOTSTRAP_KEY"> & WorkspaceBinding;
type HostBase = Omit<HostContext, "config" | "deadline" | "expired" | "policy" | "approvals" | "signal">;

/** The hook that applies to `loop` in `config`, or null. */
export function applicableHook(config: WorkspaceConfig, loop: string): PreLlmHookConfig | null {
  const hook = config.pre_llm_hook;
  return hook !== undefined && hookAppliesToLoop(hook, loop) ? hook : null;
}

/**
 * Runs the hook; a structural failure (see HookFailure.structural) is run
 * again in a fresh sandbox up to `recovery.structuralRetries` times. Each
 * attempt loads the active revision again, so a retry never runs code the
 * first attempt would not have.
 */
export async function runRequestHook(
  env: HookEnv,
  input: RequestHookInput,
  host: HostBase,
): Promise<RequestHookOutcome> {
  if (input.bypass) return { kind: "skipped" };
  const config = await (input.config ?? readWorkspaceConfig(env.DB, input.workspaceUid));
  const hook = applicableHook(config, input.loop);
  if (hook === null) return { kind: "skipped" };
  const retries = structuralRetries(config);
  const retried: HookFailure[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptHook(env, input, host, config, hook, attempt);
    const again = outcome.kind === "failed" && outcome.structural === true && attempt <= retries;
    if (!again) return { ...outcome, retried };
    retried.push(outcome);
  }
}

async function attemptHook(
  env: HookEnv,
  input: RequestHookInput,
  host: HostBase,
  config: WorkspaceConfig,
  hook: PreLlmHookConfig,
  attempt: number,
): Promise<HookFailure | { kind: "transformed"; request: NeutralRequest; run: HookRun }> {
  const { path, exportName } = parseHookSource(hook.source);
  const started = Date.now();
  const run: HookRun = { revisionId: null, path, exportName, attempt, durationMs: 0, fuelUsed: 0, logs: [] };
  const failed = (code: RequestHookCode, message: string, extra: Partial<HookFailure> = {}): HookFailure => {
    run.durationMs = Date.now() - started;
    return { kind: "failed", code, message, run, ...extra };
  };

  const file =
    attempt === 1 && input.pointers !== undefined
      ? await loadPointedFile(env, input.workspaceUid, path, input.pointers)
      : await loadDeployedFile(env, input.workspaceUid, path);
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
  const approvals =
    input.caller === undefined
      ? undefined
      : new HostApprovalGate({
          db: env.DB,
          workspaceUid: input.workspaceUid,
          ...input.caller,
          requestId: input.requestId,
          loop: input.loop,
          revisionId: file.revisionId,
        });
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
    hostCalls: hostCallsFor({
      ...host,
      config,
      deadline,
      expired,
      policy: loopPolicy(config, input.loop),
      ...(approvals === undefined ? {} : { approvals }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    }),
    fuel,
    moduleFuel: fuel,
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  });
  run.durationMs = Date.now() - started;
  run.fuelUsed = report.fuelUsed;
  run.logs = report.logs;
  const { outcome } = report;
  // The caller went away (the sandbox's hook_cancelled says so too): whatever the hook did, nothing is sent.
  if (input.signal?.aborted === true) {
    return failed("request_hook_cancelled", "The request was cancelled while its request hook ran.");
  }
  // What the gate decided wins over what the hook made of it (a hook may catch the rejection).
  if (approvals?.refused) {
    const { code, message } = approvals.refused;
    return failed("request_hook_approval_refused", `${code}: ${message}`, { refusal: approvals.refused });
  }
  if (approvals?.required) {
    const { hostCall, id } = approvals.required;
    return failed("request_hook_approval_required", `${hostCall} needs an approval (${id}).`, {
      approval: approvals.required,
    });
  }
  if (!outcome.ok && outcome.error.code === "hook_timeout") {
    return failed(
      "request_hook_timeout",
      `The request hook ran out of time (${timeoutMs} ms): ${outcome.error.message}.`,
    );
  }
  // Awaited host calls count against the wall clock: a hook whose capability
  // was cut off by the deadline timed out, whatever it did afterwards (even
  // catching the rejection and returning the original request). That one may
  // not repeat: the host call may answer in time next run.
  if (expired.value || Date.now() > deadline) {
    return failed(
      "request_hook_timeout",
      `The request hook ran longer than its ${timeoutMs} ms (time awaiting ${NAMESPACE}.* calls counts).`,
      expired.value ? { structural: true } : {},
    );
  }
  if (!outcome.ok) {
    const { code, message, engineFault } = outcome.error;
    return failed(
      SANDBOX_CODES[code] ?? "request_hook_error",
      `${code}: ${message}`,
      engineFault ? { structural: true } : {},
    );
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
