// The part of a workspace file's editor declarations that lib files and
// plugins share: JSON, the neutral request, and the `rayrun` global
// (shared/llm/host-calls.ts) that request hooks and plugins' hooks get.
// Names and rules come from the runtime's own constants; the ones that live
// in modules only the sandbox can load are pinned by type (`typeof …`), so a
// change there fails `tsc` here instead of drifting.
import type { ProviderName } from "../../../shared/config/providers";
import { LIMITS } from "../../../shared/limits";
import type {
  ALIAS_NAMESPACE as RUNTIME_ALIAS_NAMESPACE,
  NAMESPACE as RUNTIME_NAMESPACE,
} from "../../../shared/llm/hook-extensions";
import type { TIME_UP as RUNTIME_TIME_UP } from "../../../shared/llm/host-calls";
import { RESERVED_PROVIDER_PARAMS, TOOL_NAME } from "../../../shared/llm/request";

/** The global's name (`NAMESPACE` in host-calls.ts, whose module needs the sandbox: pinned by its type). */
export const NAMESPACE: typeof RUNTIME_NAMESPACE = "rayrun";
/** The alias global's name (`ALIAS_NAMESPACE` in hook-extensions.ts), pinned the same way. */
export const ALIAS_NAMESPACE: typeof RUNTIME_ALIAS_NAMESPACE = "adf";
const TIME_UP: typeof RUNTIME_TIME_UP = `the request hook's time is up`;

/** Every provider `rayrun.model` takes (keyed by ProviderName, so a new provider fails `tsc` until listed). */
const PROVIDER_DOCS: Record<ProviderName, string> = {
  openai: "an OpenAI `chat.completion`",
  anthropic: "an Anthropic `message`",
};
export const PROVIDER_NAMES = Object.keys(PROVIDER_DOCS) as ProviderName[];

const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(" | ");
const listed = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(", ");
const KiB = (bytes: number) => `${bytes / 1024} KiB`;
const ns = NAMESPACE;

const JSON_TYPES = `/** A JSON value: what crosses the sandbox's boundary (hook arguments and returns, \`${ns}.*\` arguments and answers, log data). */
type RayrunJson = null | boolean | number | string | RayrunJson[] | { [key: string]: RayrunJson };

/** A JSON object. */
type RayrunJsonObject = { [key: string]: RayrunJson };

/** A value or a promise of it: every hook may be \`async\`; its result is awaited. */
type RayrunMaybePromise<T> = T | Promise<T>;`;

const REQUEST_TYPES = `/** A text block. */
type RayrunTextBlock = {
  type: "text";
  text: string;
};

/** A tool call the model made. Only in assistant messages; answered by a \`tool_result\` in the next user message (when there is one). */
type RayrunToolUseBlock = {
  type: "tool_use";
  /** Non-empty and unique in the conversation: the \`toolUseId\` of the result that answers it. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The call's arguments. */
  input: RayrunJsonObject;
};

/** A tool's result. Only in user messages, answering a \`tool_use\` of the immediately preceding assistant message. */
type RayrunToolResultBlock = {
  type: "tool_result";
  /** The \`id\` of the \`tool_use\` this answers (each is answered once). */
  toolUseId: string;
  /** The result as text, or as text blocks. */
  content: string | RayrunTextBlock[];
  /** The tool failed. */
  isError?: boolean;
};

/** A content block of a message. */
type RayrunBlock = RayrunTextBlock | RayrunToolUseBlock | RayrunToolResultBlock;

/** One message of the conversation. */
type RayrunMessage = {
  role: "user" | "assistant";
  content: string | RayrunBlock[];
};

/** A tool definition the provider is shown. Showing or hiding one never grants or denies it: whether a tool may run is decided where it runs. */
type RayrunTool = {
  /** 1–64 letters, digits, \`_\` or \`-\` (\`${TOOL_NAME.source}\`), unique in \`tools\`. */
  name: string;
  description?: string;
  /** The JSON Schema of the tool's arguments. */
  inputSchema: RayrunJsonObject;
};

/** Request options, mapped to each provider's own fields. */
type RayrunRequestOptions = {
  /** Most output tokens: a positive integer. */
  maxTokens?: number;
  /** ≥ 0. */
  temperature?: number;
  /** Between 0 and 1. */
  topP?: number;
  /** Tokens for extended thinking: an integer ≥ 0. */
  thinkingBudget?: number;
  /** Provider-neutral reasoning settings; \`{ effort }\` is what both providers' mappings understand. */
  reasoning?: RayrunJson;
  /** Extra instructions for this call only, appended to the system text after a blank line (\`system\` stays stable). */
  dynamicInstructions?: string;
  /** Provider body fields the neutral form has no name for, sent as given. Cannot set ${listed(RESERVED_PROVIDER_PARAMS)}. */
  providerParams?: RayrunJsonObject;
};

/**
 * The neutral LLM request: what a request hook receives and returns, and what \`${ns}.model\` sends.
 * Valid only as a whole: unique tool names, and every \`tool_use\` / \`tool_result\` pair kept (see each block).
 */
type RayrunRequest = {
  /** The model, when the client named one (non-empty). */
  model?: string;
  /** The system prompt. */
  system?: string;
  messages: RayrunMessage[];
  /** The tools the provider is shown. */
  tools: RayrunTool[];
  options: RayrunRequestOptions;
};`;

const BOUNDS = `at most ${LIMITS.logEntries} entries per run, messages up to ${LIMITS.logMessageChars} characters, data up to ${KiB(LIMITS.logDataBytes)} of JSON`;

const NAMESPACE_TYPES = `/** A provider \`${ns}.model\` can call: one configured in the workspace config's \`providers\`. */
type RayrunProviderName = ${quoted(PROVIDER_NAMES)};

/** The argument of \`${ns}.lambda\`: strict JSON (an \`undefined\` member is refused with a TypeError: leave it out). */
type RayrunLambdaCall = {
  /** \`lib/<path>:<function>\` (no \`:<function>\` means \`main\`): a lib file with an active deployment and one of its exported functions. */
  source: \`lib/\${string}\`;
  /** The function's single argument, as JSON; \`null\` when left out. */
  args?: RayrunJson;
};

/** The argument of \`${ns}.model\`: strict JSON (an \`undefined\` member is refused with a TypeError: leave it out). */
type RayrunModelCall = {
  provider: RayrunProviderName;
  /** A neutral request; \`tools\` and \`options\` default to \`[]\` and \`{}\`. */
  request: {
    model?: string;
    system?: string;
    messages: RayrunMessage[];
    tools?: RayrunTool[];
    options?: RayrunRequestOptions;
  };
};

/** Log entries kept with the run (\`run.logs\` and its record's details): ${BOUNDS}. */
interface RayrunLog {
  /**
   * Logs at level debug. \`data\` must be JSON (a TypeError otherwise).
   * Going over a bound (${BOUNDS}) fails the hook, even if it catches the error.
   */
  debug(message: string, data?: RayrunJson): void;
  /** Logs at level info; the same rules as \`debug\`. */
  info(message: string, data?: RayrunJson): void;
  /** Logs at level warn; the same rules as \`debug\`. */
  warn(message: string, data?: RayrunJson): void;
  /** Logs at level error; the same rules as \`debug\`. */
  error(message: string, data?: RayrunJson): void;
}

/**
 * What a hook can call (a frozen global). Request hooks, plugins' hooks and the files test console have all of it;
 * a plugin tool's \`tool()\` and \`execute\` only \`log\`, whose entries only the test console keeps (their \`lambda\`
 * and \`model\` reject with \`no host capability named …\`); a function run through \`${ns}.lambda\` has no \`${ns}\` (nor \`${ALIAS_NAMESPACE}\`) at all.
 * Every awaited call is bounded by the hook's time: at its deadline a pending call rejects
 * (\`${TIME_UP}\`) and the hook fails with a timeout, whatever it does next.
 * An argument larger than 1 MiB of JSON is refused with a RangeError.
 */
interface RayrunNamespace {
  /**
   * Runs another deployed lib function in a fresh sandbox without capabilities and resolves to what it returns
   * (JSON; \`T\` is what you declare it returns, unchecked). Its CPU work gets the fuel left in the hook's time.
   *
   * Rejects with:
   * - \`${ns}.lambda is disabled: …\` when the workspace config's \`code_execution.sys_lambda\` is not \`true\`;
   * - \`${ns}.lambda takes { source: "lib/file.ts:function", args }\` for another argument shape;
   * - \`${ns}.lambda: "<source>" is not a lib/ source\`;
   * - \`${ns}.lambda: <path> is not an authorized source (no active deployment)\` (never deployed, shadow only, or not under lib/);
   * - \`${ns}.lambda: <path> exports no function <name>\`;
   * - \`${ns}.lambda <source> failed (<code>): <message>\` when the function fails (\`hook_threw\`, \`hook_timeout\`, …).
   */
  lambda<T = RayrunJson>(call: RayrunLambdaCall): Promise<T>;
  /**
   * A direct model call through the workspace's configured provider (its \`baseUrl\`; the key comes from the secret
   * its \`apiKeySecret\` names and is never visible here). Resolves to the provider's JSON answer as-is: ${PROVIDER_NAMES.map((name) => `${PROVIDER_DOCS[name]} for \`${name}\``).join(", ")} (\`T\` is what you declare it is, unchecked).
   * No streaming; neither the request hook nor plugins run for it.
   *
   * Rejects with:
   * - \`${ns}.model takes { provider: ${PROVIDER_NAMES.map((name) => `"${name}"`).join(" | ")}, request }\` for another argument shape;
   * - \`${ns}.model: invalid request: <problems>\` when \`request\` is not a valid neutral request;
   * - \`${ns}.model: <reason>\` when the provider is not configured, its secret is missing or it cannot be reached;
   * - \`${ns}.model: the provider answered HTTP <status>\`;
   * - \`${ns}.model: the provider's answer is not JSON\`.
   */
  model<T = RayrunJson>(call: RayrunModelCall): Promise<T>;
  /** Log entries kept with the run. */
  readonly log: RayrunLog;
}

/** What a hook can call: \`${ns}.lambda\`, \`${ns}.model\`, \`${ns}.log\`. */
declare const ${ns}: RayrunNamespace;

/**
 * The same two capabilities under the names published examples use, present wherever \`${ns}\` is:
 * the very same functions, with the same arguments, answers, gates and error messages (which name \`${ns}.*\`).
 */
interface RayrunAliasNamespace {
  /** \`${ns}.lambda\` under another name. */
  readonly sys_lambda: RayrunNamespace["lambda"];
  /** \`${ns}.model\` under another name. */
  readonly model_invoke: RayrunNamespace["model"];
}

/** \`${ALIAS_NAMESPACE}.sys_lambda\` is \`${ns}.lambda\`, \`${ALIAS_NAMESPACE}.model_invoke\` is \`${ns}.model\`. */
declare const ${ALIAS_NAMESPACE}: RayrunAliasNamespace;`;

/** The declarations every workspace file gets. */
export const COMMON_TYPES = [JSON_TYPES, REQUEST_TYPES, NAMESPACE_TYPES].join("\n\n");
