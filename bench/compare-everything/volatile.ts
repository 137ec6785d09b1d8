// The values compared loosely, per row: each is random or time-dependent in
// server-everything itself (read from its source), so it differs between any
// two runs, gateway or not. Everything else must match exactly.
import { RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";
import { TEMPLATE_RESOURCE } from "./plan";

/** One side's values of a row, by report column (see compare.ts). */
export type SideValues = Record<string, unknown>;

export interface VolatileRule {
  /** What is ignored and why, for the report. */
  ignores: string;
  apply: (values: SideValues) => void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Replaces what `path` reaches in `container` (`*`: every element or member) with `change` of it. */
function edit(container: unknown, path: readonly string[], change: (value: unknown) => unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const step = (value: unknown): unknown => {
    if (rest.length === 0) return value === undefined ? value : change(value);
    edit(value, rest, change);
    return value;
  };
  if (Array.isArray(container)) {
    const items = container as unknown[];
    const indexes = head === "*" ? items.map((_, index) => index) : [Number(head)];
    for (const index of indexes) if (index in items) items[index] = step(items[index]);
  } else if (isRecord(container)) {
    for (const key of head === "*" ? Object.keys(container) : [head])
      if (key in container) container[key] = step(container[key]);
  }
}

const IGNORED = "<ignored>";
const ignore = (): string => IGNORED;

/** textResource()/blobResource() stamp `created at ${new Date().toLocaleTimeString()}`. */
function withoutTime(value: unknown): unknown {
  if (typeof value !== "string") return value;
  return value.replace(/created at .*$/, "created at <time>");
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const withoutUuids = (value: unknown): unknown =>
  typeof value === "string" ? value.replace(UUID, "<uuid>") : value;

const SESSION_ID_IN_TEXT = {
  ignores: "the upstream MCP session id (a random UUID) inside content[].text",
  apply: (values: SideValues) => edit(values, ["content", "content", "*", "text"], withoutUuids),
};

const SIMULATED_LOGGING = {
  ignores: `${SESSION_ID_IN_TEXT.ignores}; the level and data of log notifications (a random level each, data naming the session id) — their count is compared`,
  apply: (values: SideValues) => {
    SESSION_ID_IN_TEXT.apply(values);
    edit(values, ["log", "logs", "*", "level"], ignore);
    edit(values, ["log", "logs", "*", "data"], ignore);
  },
};

export const VOLATILE: Record<string, VolatileRule> = {
  "get-resource-reference": {
    ignores: "the resource's creation time (`created at <local time>`) in content[].resource.text",
    apply: (values) => edit(values, ["content", "content", "*", "resource", "text"], withoutTime),
  },
  [`resources/read ${TEMPLATE_RESOURCE}`]: {
    ignores: "the resource's creation time (`created at <local time>`) in contents[].text",
    apply: (values) => edit(values, ["content", "result", "contents", "*", "text"], withoutTime),
  },
  "prompts/get resource-prompt": {
    ignores:
      "the embedded resource's creation time (`created at <local time>`) in messages[].content.resource.text",
    apply: (values) =>
      edit(values, ["content", "result", "messages", "*", "content", "resource", "text"], withoutTime),
  },
  "toggle-simulated-logging": SIMULATED_LOGGING,
  "toggle-simulated-logging (2nd call)": SIMULATED_LOGGING,
  "toggle-subscriber-updates": SESSION_ID_IN_TEXT,
  "toggle-subscriber-updates (2nd call)": SESSION_ID_IN_TEXT,
  "trigger-url-elicitation (errorPath)": {
    ignores: "the prerequisite's elicitationId (a random UUID) in the error's data.elicitations[]",
    apply: (values) =>
      edit(values, ["content", "error", "data", "elicitations", "*", "elicitationId"], ignore),
  },
  "simulate-research-query": {
    ignores: `the task id (random) in _meta["${RELATED_TASK_META_KEY}"] of the result and of the elicitation request, and in notifications/tasks/status; their createdAt and lastUpdatedAt (clock times); the SDK's task stream messages between the first and the last (which stages its polls see depends on timing)`,
    apply: (values) => {
      for (const path of [
        ["content", "_meta", RELATED_TASK_META_KEY, "taskId"],
        ["clientRequests", "*", "params", "_meta", RELATED_TASK_META_KEY, "taskId"],
        ["log", "notifications", "*", "params", "taskId"],
        ["log", "notifications", "*", "params", "createdAt"],
        ["log", "notifications", "*", "params", "lastUpdatedAt"],
      ])
        edit(values, path, ignore);
      edit(values, ["content", "taskStream"], (stream) =>
        Array.isArray(stream) && stream.length > 2 ? [stream[0], stream.at(-1)] : stream,
      );
    },
  },
};
