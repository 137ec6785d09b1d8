// Hook-run records as `GET …/hooks/logs` answers them (shared/logs/query.ts RunView). The value lists
// come from the records' own module, so a new stage, outcome or kind reaches the filters with it.
import type { InferRequestType, InferResponseType } from "hono/client";
import type { api } from "../../api/client";
import {
  HOOK_KINDS,
  RUN_CHANNELS,
  RUN_MODES,
  RUN_OUTCOMES,
  RUN_STAGES,
} from "../../../../shared/db/run-types";

export const STAGES = RUN_STAGES;
export const OUTCOMES = RUN_OUTCOMES;
export const CHANNELS = RUN_CHANNELS;
export const KINDS = HOOK_KINDS;
export const MODES = RUN_MODES;

type Logs = (typeof api.v1.workspaces)[":ws"]["hooks"]["logs"];

/** The JSON page the console asks for (the route also answers NDJSON text). */
export type RunPage = Exclude<InferResponseType<Logs["$get"], 200>, string>;
export type Run = RunPage["items"][number];
export type RunDetails = NonNullable<Run["details"]>;
/** The query `GET …/hooks/logs` takes. */
export type RunQuery = InferRequestType<Logs["$get"]>["query"];

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
