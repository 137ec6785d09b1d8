// Hook-run records as `GET …/hooks/logs` answers them (shared/logs/query.ts RunView).

export const STAGES = [
  "before",
  "after",
  "pipeline",
  "transform",
  "tool",
  "chat.params",
  "tool.execute.before",
  "tool.execute.after",
] as const;
export const OUTCOMES = [
  "continue",
  "reject",
  "approval",
  "return",
  "fail",
  "error",
  "refused",
  "threw",
  "abandoned",
  "passed",
  "superseded",
] as const;
export const CHANNELS = ["active", "shadow"] as const;
export const KINDS = ["tool_adapter", "request_hook", "plugin"] as const;

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
  kind: (typeof KINDS)[number];
  target: string;
  toolUid: string | null;
  toolName: string | null;
  stage: string;
  channel: "active" | "shadow";
  outcome: string;
  code: string | null;
  revisionId: string | null;
  requestId: string;
  durationMs: number;
  fuelUsed: number;
  shadowDiffered: boolean | null;
  loop: string | null;
  plugin: string | null;
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
  "revision",
  "requestId",
  "tool",
  "target",
  "since",
  "until",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const isDifferingShadow = (run: Run) => run.channel === "shadow" && run.shadowDiffered === true;

/** What ran: the tool, the plugin, or the request hook and its loop. */
export function hookLabel(run: Run): string {
  if (run.kind === "plugin") return `plugin ${run.plugin ?? run.target.replace(/^file:/, "")}`;
  if (run.kind === "request_hook") return `request hook${run.loop ? ` (${run.loop})` : ""}`;
  return run.toolName ?? run.target.replace(/^tool:/, "");
}

const OUTCOME_BADGE: Record<string, string> = {
  continue: "badge-ok",
  passed: "badge",
  return: "badge-ok",
  approval: "badge-warn",
  reject: "badge-warn",
  superseded: "badge",
  fail: "badge-danger",
  error: "badge-danger",
  refused: "badge-danger",
  threw: "badge-danger",
  abandoned: "badge-danger",
};

export const outcomeBadge = (outcome: string) => `badge ${OUTCOME_BADGE[outcome] ?? ""}`.trim();
