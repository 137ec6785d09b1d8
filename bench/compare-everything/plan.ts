// What is called, with which arguments: a table for the tools of
// server-everything that need specific ones, the input schema's required
// fields for any other.
import type { Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";

export interface PlannedCall {
  /** The report's row. */
  label: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** Called on new sessions of both sides, closed right after. */
  freshSessions?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A data: URL, so gzip-file-as-resource compresses it without its default fetch from GitHub. */
const GZIP_INPUT = `data:text/plain;base64,${Buffer.from("Hello from compare-everything.\n").toString("base64")}`;

/** Per tool, one entry per call (a second call where the first one changes state). */
const TOOL_CALLS: Record<string, (Omit<PlannedCall, "tool" | "label"> & { label?: string })[]> = {
  echo: [{ arguments: { message: "hello from compare-everything" } }],
  "get-annotated-message": [{ arguments: { messageType: "error", includeImage: true } }],
  "get-resource-links": [{ arguments: { count: 3 } }],
  "get-resource-reference": [{ arguments: { resourceType: "Text", resourceId: 1 } }],
  "get-structured-content": [{ arguments: { location: "New York" } }],
  "get-sum": [{ arguments: { a: 2, b: 3 } }],
  // On sessions of its own: server-everything keeps session resources in one map for the whole
  // process, so registering the same name again removes the other session's and notifies that
  // session (resources/list_changed), which would reach the direct client during the gateway's call.
  "gzip-file-as-resource": [
    { arguments: { name: "hello.txt.gz", data: GZIP_INPUT, outputType: "resource" }, freshSessions: true },
  ],
  // Short: the default is 10 s; four steps still give four progress notifications.
  "trigger-long-running-operation": [{ arguments: { duration: 2, steps: 4 } }],
  "trigger-sampling-request": [{ arguments: { prompt: "Name a colour.", maxTokens: 16 } }],
  // An explicit elicitationId: the default is a random UUID, which would be in the answer.
  "trigger-url-elicitation": [
    { arguments: { url: "https://example.com/consent", elicitationId: "compare-everything-1" } },
    // On sessions of its own: the SDK client (1.32.2) resumes a POST stream that ended in a JSON-RPC
    // error as if it had ended early (GET with Last-Event-ID, a second later), and server-everything's
    // event store then replays every later event of the session, of every stream, so the requests and
    // results of the calls that follow arrive twice.
    {
      label: "trigger-url-elicitation (errorPath)",
      arguments: {
        url: "https://example.com/consent",
        elicitationId: "compare-everything-2",
        errorPath: true,
      },
      freshSessions: true,
    },
  ],
  "simulate-research-query": [{ arguments: { topic: "python", ambiguous: true } }],
  // Each toggle starts a per-session timer on its first call: the second stops it.
  "toggle-simulated-logging": [
    { arguments: {} },
    { label: "toggle-simulated-logging (2nd call)", arguments: {} },
  ],
  "toggle-subscriber-updates": [
    { arguments: {} },
    { label: "toggle-subscriber-updates (2nd call)", arguments: {} },
  ],
};

/** A value for a required field: its default, first choice, or a fixed value of its type. */
function valueFor(field: unknown): unknown {
  if (!isRecord(field)) return "example";
  if (field.default !== undefined) return field.default;
  if (Array.isArray(field.enum) && field.enum.length > 0) return field.enum[0];
  switch (field.type) {
    case "number":
    case "integer":
      return typeof field.minimum === "number" ? field.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "example";
  }
}

export function argumentsFromSchema(schema: Tool["inputSchema"]): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) args[name] = valueFor(properties[name]);
  return args;
}

export function callsFor(tool: Tool): PlannedCall[] {
  const planned = TOOL_CALLS[tool.name];
  if (planned === undefined) {
    return [{ label: tool.name, tool: tool.name, arguments: argumentsFromSchema(tool.inputSchema) }];
  }
  return planned.map((call) => ({ ...call, label: call.label ?? tool.name, tool: tool.name }));
}

const PROMPT_ARGUMENTS: Record<string, Record<string, string>> = {
  "args-prompt": { city: "Paris", state: "Texas" },
  "completable-prompt": { department: "Engineering", name: "Alice" },
  "resource-prompt": { resourceType: "Text", resourceId: "1" },
};

export function promptArguments(prompt: Prompt): Record<string, string> {
  const table = PROMPT_ARGUMENTS[prompt.name];
  if (table !== undefined) return table;
  const args: Record<string, string> = {};
  for (const argument of prompt.arguments ?? []) if (argument.required) args[argument.name] = "example";
  return args;
}

/** completion/complete requests: a prompt argument, one narrowed by context, a template variable. */
export const COMPLETIONS = [
  {
    label: "completion/complete completable-prompt department",
    params: {
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    },
  },
  {
    label: "completion/complete completable-prompt name (department Engineering)",
    params: {
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "name", value: "A" },
      context: { arguments: { department: "Engineering" } },
    },
  },
  {
    label: "completion/complete resource template resourceId",
    params: {
      ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
      argument: { name: "resourceId", value: "1" },
    },
  },
] as const;

/** The templated resource read besides the first listed one. */
export const TEMPLATE_RESOURCE = "demo://resource/dynamic/text/1";
