// One record per hook stage run (and per pre-dispatch refusal), shared by the
// gateway (writer), the test console and the logs routes (readers).
// Metadata is always stored; `details` only when the service's payload capture
// is on and the workspace's detail policy allows it.
import type { Json } from "../json.ts";
import type { LogEntry } from "../sandbox/types.ts";

/** `code_mode`: a Code Mode `execute`, the model's code that made the calls recorded under its request id. */
export const HOOK_KINDS = ["tool_adapter", "request_hook", "plugin", "code_mode"] as const;
export type HookKind = (typeof HOOK_KINDS)[number];
export const RUN_CHANNELS = ["active", "shadow"] as const;
export type RunChannel = (typeof RUN_CHANNELS)[number];
/**
 * How the tool call a record belongs to was made: `code` for a Code Mode
 * execution and the calls its code made, `direct` for everything else.
 */
export const RUN_MODES = ["direct", "code"] as const;
export type RunMode = (typeof RUN_MODES)[number];
/**
 * `pipeline` records a refusal that happened outside any hook (access, validation, approval, recheck);
 * `execute` a Code Mode execution as a whole.
 */
export const RUN_STAGES = [
  "before",
  "after",
  "pipeline",
  "transform",
  "tool",
  "chat.params",
  "tool.execute.before",
  "tool.execute.after",
  "execute",
] as const;
export type RunStage = (typeof RUN_STAGES)[number];

/** What happened, as a small closed set; `code` says precisely why. */
export const RUN_OUTCOMES = [
  "continue",
  "reject",
  "approval",
  "return",
  "fail",
  "error", // the hook failed closed (hook_* codes, schema mismatches)
  "refused", // the pipeline refused before or around the hook (access_blocked, revision_changed, …)
  "threw", // plugins: caught and dropped (fail open)
  "abandoned", // plugins: exceeded their time bound
  "passed", // no hook ran at this stage, the value passed through
  "superseded", // ran, then discarded: the active revision changed before dispatch and the stages ran again
  "cancelled", // request hooks: the caller went away while the hook ran; nothing was sent
  "turn_error_retry", // request hooks: the attempt failed structurally and the hook ran again
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface RunMetadata {
  workspaceUid: string;
  kind: HookKind;
  /** `tool:<uid>` or `file:<path>`. */
  target: string;
  toolUid: string | null;
  toolName: string | null;
  stage: RunStage;
  channel: RunChannel;
  outcome: RunOutcome;
  /** Stable product code (`hook_timeout`, `access_blocked`, …) or null. */
  code: string | null;
  revisionId: string | null;
  requestId: string;
  durationMs: number;
  fuelUsed: number;
  /** Shadow records only: whether the shadow's outcome, arguments or result differed from active's. */
  shadowDiffered: boolean | null;
  /** Request hooks: the loop name; plugins: the plugin name. */
  loop?: string | null;
  plugin?: string | null;
  /** Absent: `direct`. */
  mode?: RunMode;
  /**
   * Request hooks: the run failed the request as a turn error (the hook's
   * failure, not the provider's); null for other kinds.
   */
  turnError?: boolean | null;
  /** Request hooks: 1 for the first run, then each structural retry's number; null for other kinds. */
  attempt?: number | null;
  /** ISO-8601 UTC. */
  at: string;
}

/** Captured details: stored only under payload capture + detail policy, returned only to hooks:write keys. */
export interface RunDetails {
  reason?: string;
  message?: string;
  logs?: LogEntry[];
  error?: string;
  arguments?: Json;
  result?: Json;
  /**
   * Set by the log writer when the details exceeded the stored size: long texts were
   * shortened and the named parts (`result`, `arguments`, `logs`) cut or dropped.
   */
  truncated?: { omitted: string[]; logsDropped: number };
}

export interface RunRecord extends RunMetadata {
  details: RunDetails | null;
}
