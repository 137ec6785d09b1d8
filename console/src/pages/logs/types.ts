// Hook-run records as `GET …/hooks/logs` answers them (shared/logs/query.ts RunView). The value lists
// come from the records' own module, so a new stage, outcome or kind reaches the filters with it.
import {
  HOOK_KINDS,
  RUN_CHANNELS,
  RUN_MODES,
  RUN_OUTCOMES,
  RUN_STAGES,
  type HookKind,
  type RunChannel,
  type RunMode,
} from "../../../../shared/db/run-types";

export const STAGES = RUN_STAGES;
export const OUTCOMES = RUN_OUTCOMES;
export const CHANNELS = RUN_CHANNELS;
export const KINDS = HOOK_KINDS;
export const MODES = RUN_MODES;

export interface RunDetails {
  reason?: string;
  message?: string;
  logs?: { level: string; message: string; data?: unknown }[];
  error?: string;
  arguments?: unknown;
  result?: unknown;
  truncated?: { omitted: string[]; logsDropped: number };
}

export interface Run {
  id: string;
  at: string;
  kind: HookKind;
  target: string;
  toolUid: string | null;
  toolName: string | null;
  stage: string;
  channel: RunChannel;
  outcome: string;
  code: string | null;
  revisionId: string | null;
  requestId: string;
  durationMs: number;
  fuelUsed: number;
  shadowDiffered: boolean | null;
  loop: string | null;
  plugin: string | null;
  /** `code`: a Code Mode execution, or a call its code made. */
  mode: RunMode;
  /** Request hooks: whether the run failed its request as a turn error; null for other kinds. */
  turnError: boolean | null;
  /** Request hooks: 1, or the structural retry's number; null for other kinds. */
  attempt: number | null;
  /** Present only for callers who see captured details (admins); null when nothing was captured. */
  details?: RunDetails | null;
}

export interface RunPage {
  items: Run[];
  nextCursor: string | null;
}

/** Query-string keys that filter runs; each is the API's own parameter name. */
export const FILTER_KEYS = [
  "stage",
  "outcome",
  "channel",
  "kind",
  "mode",
  "revision",
  "requestId",
  "tool",
  "target",
  "since",
  "until",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const isDifferingShadow = (run: Run) => run.channel === "shadow" && run.shadowDiffered === true;

/** What ran: the tool, the plugin, the request hook and its loop, or a Code Mode execution. */
export function hookLabel(run: Run): string {
  if (run.kind === "plugin") return `plugin ${run.plugin ?? run.target.replace(/^file:/, "")}`;
  if (run.kind === "request_hook") return `request hook${run.loop ? ` (${run.loop})` : ""}`;
  if (run.kind === "code_mode") return "Code Mode execute";
  return run.toolName ?? run.target.replace(/^tool:/, "");
}

// Every outcome has a colour: a new one fails the type check until it is given one.
const OUTCOME_BADGE: Record<(typeof OUTCOMES)[number], string> = {
  continue: "badge-ok",
  passed: "badge",
  return: "badge-ok",
  approval: "badge-warn",
  reject: "badge-warn",
  superseded: "badge",
  cancelled: "badge-warn",
  turn_error_retry: "badge-warn",
  fail: "badge-danger",
  error: "badge-danger",
  refused: "badge-danger",
  threw: "badge-danger",
  abandoned: "badge-danger",
};

const isOutcome = (outcome: string): outcome is (typeof OUTCOMES)[number] =>
  Object.hasOwn(OUTCOME_BADGE, outcome);

export const outcomeBadge = (outcome: string) =>
  `badge ${isOutcome(outcome) ? OUTCOME_BADGE[outcome] : ""}`.trim();
