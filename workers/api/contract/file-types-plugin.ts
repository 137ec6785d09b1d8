// The editor declarations only plugins get: the default export's shape, one
// member per hook the runtime dispatches (PLUGIN_HOOKS), each with the payload
// it is called with and what it may return — `chat.params`
// (shared/plugins/chat-params.ts), `tool.execute.before` / `.after`
// (the gateway's execute payloads and hooks), `tool` (read at deploy time,
// its `execute` run per call).
import { PLUGIN_HOOKS, type PluginHook } from "../../../shared/files/exports";
import { LIMITS } from "../../../shared/limits";
import { RESERVED_PROVIDER_PARAMS } from "../../../shared/llm/request";
import type { CHAT_PARAM_KEYS } from "../../../shared/plugins/chat-params";
import { NAMESPACE } from "./file-types-common";

const ns = NAMESPACE;
const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(" | ");

interface ChatParam<K> {
  key: K;
  doc: string;
  /** The member as the hook receives it (present, `undefined` when unset). */
  input: string;
  /** The member as the hook may return it. */
  output: string;
}
/** One ChatParam per key of `T`, in `T`'s order (a mapped tuple: it needs a type parameter). */
type ChatParamList<T extends readonly string[]> = { readonly [I in keyof T]: ChatParam<T[I]> };

/**
 * The params `chat.params` sees, in CHAT_PARAM_KEYS order: the tuple is typed
 * by it, so a key added, removed or moved there fails `tsc` here.
 */
const CHAT_PARAMS: ChatParamList<typeof CHAT_PARAM_KEYS> = [
  {
    key: "model",
    doc: "The request's model. Read-only: a returned `model` is ignored (changing models is the request hook's job).",
    input: "readonly model: string | undefined",
    output: "model?: string",
  },
  {
    key: "temperature",
    doc: "`options.temperature`: ≥ 0.",
    input: "temperature: number | undefined",
    output: "temperature?: number",
  },
  {
    key: "topP",
    doc: "`options.topP`: between 0 and 1.",
    input: "topP: number | undefined",
    output: "topP?: number",
  },
  {
    key: "topK",
    doc: "`options.providerParams.top_k`: a positive integer (not sent to OpenAI, which has none).",
    input: "topK: number | undefined",
    output: "topK?: number",
  },
  {
    key: "maxOutputTokens",
    doc: "`options.maxTokens`: a positive integer, clamped after the pipeline to the model's output limit.",
    input: "maxOutputTokens: number | undefined",
    output: "maxOutputTokens?: number",
  },
  {
    key: "options",
    doc: "The provider options: `providerParams` without `top_k`, plus `reasoning` and `thinkingBudget`; merged over the request's own (your keys win). Left out, the request's own stay.",
    input: "options: RayrunChatOptions | undefined",
    output: "options?: RayrunChatOptions",
  },
];

/** `options` keys chatParamsProblem refuses: the request's own fields and the fields the params name. */
export const REFUSED_CHAT_OPTIONS = [
  ...RESERVED_PROVIDER_PARAMS,
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
] as const;

const members = (pick: (param: ChatParam<string>) => string) =>
  CHAT_PARAMS.map((param) => `  /** ${param.doc} */\n  ${pick(param)};`).join("\n");

const CHAT_TYPES = `/** \`chat.params\`'s provider options (every other key is a provider body field, sent as given). */
type RayrunChatOptions = {
  /** Provider-neutral reasoning settings (\`{ effort }\`); overriding it changes the reasoning variant. */
  reasoning?: RayrunJson;
  /** Tokens for extended thinking: an integer ≥ 0. */
  thinkingBudget?: number;
${REFUSED_CHAT_OPTIONS.map((key) => `  /** Not a provider option here: set the request's own fields or the params instead. */\n  ${JSON.stringify(key)}?: never;`).join("\n")}
  [providerParam: string]: RayrunJson | undefined;
};

/** What \`chat.params\` receives: every key present, \`undefined\` when nobody set it (\`"temperature" in params\` is always true). */
type RayrunChatParams = {
${members((param) => param.input)}
};

/**
 * What \`chat.params\` may return: the params for the next plugin and the provider. A left-out field is unset
 * (\`temperature\`, \`topP\`, \`topK\`, \`maxOutputTokens\` are then not sent; \`options\` keeps the request's own).
 * A return that breaks a rule is dropped like a throw.
 */
type RayrunChatParamsResult = {
${members((param) => param.output)}
};`;

const EXECUTE_TYPES = `/** Which tool call this is; the same object for every plugin of one call. */
type RayrunToolExecuteContext = {
  /** The call's correlation id: its run records' \`requestId\` and the result's \`_meta["rayrun/requestId"]\`. */
  requestId: string;
  workspaceUid: string;
  /** ISO-8601 UTC time the gateway took the call. */
  calledAt: string;
  /** The client's agent loop (\`x-rayrun-loop\`), when it sent one. */
  loop?: string;
  /** The client's MCP session id (\`mcp-session-id\`), when it sent one. */
  sessionId?: string;
};

/** What \`tool.execute.before\` receives, and returns to change the call. */
type RayrunToolExecuteBeforeInput = {
  /** The tool's public name (a plugin tool's id). */
  toolID: string;
  /** The arguments about to be sent: the only member read back; checked again against the tool's schema (a mismatch refuses the call). */
  args: RayrunJsonObject;
  ctx: RayrunToolExecuteContext;
};

/** The tool's result as \`tool.execute.after\` sees it. */
type RayrunToolExecuteResult = {
  /** The tool's public name. */
  title: string;
  /** The result's text blocks, joined with newlines. A different string replaces the text content: the only member read back. */
  output: string;
  metadata: {
    /** The tool answered with an error (the hook runs on errors too). */
    isError: boolean;
    /** The result's structuredContent, when it has one. */
    structuredContent?: RayrunJsonObject;
  };
};

/** What \`tool.execute.after\` receives, and returns to change the output. */
type RayrunToolExecuteAfterInput = {
  /** The tool's public name (a plugin tool's id). */
  toolID: string;
  /** The arguments the tool was called with. */
  args: RayrunJsonObject;
  result: RayrunToolExecuteResult;
  ctx: RayrunToolExecuteContext;
};`;

const TOOL_TYPES = `/** A JSON Schema describing an object (MCP tool arguments are objects); \`pattern\` and other regex keywords are refused. */
type RayrunObjectSchema = { type: "object"; [keyword: string]: RayrunJson };

/** The frozen second argument of a plugin tool's \`execute\`. */
type RayrunPluginToolContext = {
  /** The tool's id. */
  readonly toolID: string;
  /** The call's correlation id. */
  readonly requestId: string;
  readonly workspaceUid: string;
  /** ISO-8601 UTC time the gateway took the call. */
  readonly calledAt: string;
};

/** What a plugin tool's \`execute\` returns; only \`output\` and \`metadata\` are read. */
type RayrunPluginToolResult = {
  /** Not read: \`tool.execute.after\` sees the tool's id as \`result.title\`. */
  title?: string;
  /** The text the client gets (the result's one text block). */
  output: string;
  /** The result's structuredContent. */
  metadata?: RayrunJsonObject;
};

/** One tool a plugin offers: \`tools/list\` shows it beside the upstream tools. */
type RayrunPluginTool = {
  /** 1–64 letters, digits, \`_\`, \`.\` or \`-\`; not a protected id or an indexed tool's name. A later plugin's tool with the same id replaces it. */
  id: string;
  description?: string;
  /** The JSON Schema of the arguments: checked before \`tool.execute.before\` and again after it. */
  parameters: RayrunObjectSchema;
  /**
   * Runs the tool, in a fresh sandbox that takes it from its own call of \`tool()\`, with the plugin's time as fuel
   * (${LIMITS.pluginHookTimeoutMs} ms). No \`${ns}.lambda\` or \`${ns}.model\` here, and \`${ns}.log\` entries are kept only by the test console. A throw or a return without a string
   * \`output\` is a tool error (\`plugin_tool_failed\`).
   */
  execute(args: RayrunJsonObject, context: RayrunPluginToolContext): RayrunMaybePromise<RayrunPluginToolResult>;
};`;

/** Each hook's doc and signature; keyed by PluginHook, so a hook added to PLUGIN_HOOKS fails `tsc` until it is described. */
const HOOKS: Record<PluginHook, { doc: string; type: string }> = {
  tool: {
    doc: `The tools this plugin offers. Called with \`{}\` once per revision at deploy time (the definitions are stored as JSON; a refused one is logged and skipped), and again in each call's sandbox to find \`execute\`. No \`${ns}.lambda\` or \`${ns}.model\` here, and \`${ns}.log\` entries are kept only by the test console.`,
    type: "(input: Record<string, never>) => RayrunMaybePromise<RayrunPluginTool[]>",
  },
  "chat.params": {
    doc: "The LLM request's params, after the request hook and before the provider (on both LLM paths, and on history-compaction calls). Return the params (a replacement), or nothing for no change.",
    type: "(params: RayrunChatParams) => RayrunMaybePromise<RayrunChatParamsResult | void>",
  },
  "tool.execute.before": {
    doc: "Before a tool call is sent (an indexed tool's upstream call, or a plugin tool's `execute`). Return the whole payload (`{ ...input, args }`), or nothing for no change.",
    type: "(input: RayrunToolExecuteBeforeInput) => RayrunMaybePromise<RayrunToolExecuteBeforeInput | void>",
  },
  "tool.execute.after": {
    doc: "After a tool call answered (errors included). Return the whole payload (`{ ...input, result: { ...input.result, output } }`), or nothing for no change.",
    type: "(input: RayrunToolExecuteAfterInput) => RayrunMaybePromise<RayrunToolExecuteAfterInput | void>",
  },
};

const PLUGIN_SHAPE = `/** A hook a plugin may define. */
type RayrunPluginHookName = ${quoted(PLUGIN_HOOKS)};

/**
 * A plugin: \`export default { … } satisfies RayrunPlugin\` (the file's only export), keyed by hook name.
 * Active plugins run in order, each in a fresh sandbox, and each receives what the previous one returned:
 * returning nothing means no change, a returned value replaces the whole payload (a fragment drops what it leaves out).
 * Plugins fail open: a hook that throws, returns something unusable or runs past ${LIMITS.pluginHookTimeoutMs} ms
 * (CPU as fuel, awaited \`${ns}.*\` calls on the wall clock) is logged and its contribution dropped; the call goes on.
 */
type RayrunPlugin = {
${PLUGIN_HOOKS.map((hook) => `  /** ${HOOKS[hook].doc} */\n  ${JSON.stringify(hook)}?: ${HOOKS[hook].type};`).join("\n")}
};`;

/** The declarations a `plugins/…` file gets besides the common ones. */
export const PLUGIN_TYPES = [CHAT_TYPES, EXECUTE_TYPES, TOOL_TYPES, PLUGIN_SHAPE].join("\n\n");
