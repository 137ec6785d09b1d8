// Plugins' `chat.params` on the LLM path: after the request hook, before the provider.
// The params are derived from the neutral request:
//
//   model            request.model (information: a returned model is ignored;
//                    changing models is the request hook's job)
//   temperature      options.temperature
//   topP             options.topP
//   topK             options.providerParams.top_k
//   maxOutputTokens  options.maxTokens — clamped afterwards to the model's real
//                    output limit (shared/plugins/models.ts)
//   options          the product's provider options: providerParams (without
//                    top_k) plus the neutral `reasoning` and `thinkingBudget`
//
// Fields the caller did not set arrive as `undefined` (present, so
// `"temperature" in params` is true): JSON cannot carry undefined into the
// sandbox, so CHAT_PARAMS_EXTENSION rebuilds the argument inside it with
// every key. The result is mapped back into the neutral request, the returned
// `options` merged over the product's own (the plugin's keys win).
import type { ProviderName } from "../config/providers";
import type { ModelOutputLimits, WorkspaceConfig } from "../config/schema";
import { isJsonObject, type Json, type JsonObject } from "../json";
import {
  RESERVED_PROVIDER_PARAMS,
  withValidOptions,
  type NeutralRequest,
  type Options,
} from "../llm/request";
import type { RunRecord } from "../db/run-types";
import type { PreludeExtension } from "../sandbox";
import { definePreludeConstants, PLUGIN_CHAT_PARAMS_JS } from "../sandbox/prelude";
import type { DeployedPlugin } from "./discovery";
import { modelOutputLimit } from "./models";
import { runPluginHook, type PluginEnv } from "./run";

/** The keys `chat.params` always sees, in this order. */
export const CHAT_PARAM_KEYS = [
  "model",
  "temperature",
  "topP",
  "topK",
  "maxOutputTokens",
  "options",
] as const;

/** Keys of `options` that are neutral request options rather than provider body fields. */
const NEUTRAL_OPTION_KEYS = ["reasoning", "thinkingBudget"] as const;

/** Body fields `options` may not carry: the request's own, and those the params name. */
const REFUSED_OPTION_KEYS: readonly string[] = [
  ...RESERVED_PROVIDER_PARAMS,
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
];

/**
 * Makes every chat.params key present inside the sandbox, `undefined` when the
 * caller left it unset (the argument is rebuilt by the call's builder, before
 * the hook sees it).
 */
export const CHAT_PARAMS_EXTENSION: PreludeExtension = {
  name: "chat-params",
  source: definePreludeConstants({ CHAT_PARAM_KEYS }, PLUGIN_CHAT_PARAMS_JS),
};

const omitUndefined = (object: Record<string, Json | undefined>): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as JsonObject;

/** The product's provider options for a request: providerParams (without top_k), reasoning, thinkingBudget. */
export function productOptions(request: NeutralRequest): JsonObject {
  const { top_k: _topK, ...params } = request.options.providerParams ?? {};
  return omitUndefined({
    ...params,
    reasoning: request.options.reasoning,
    thinkingBudget: request.options.thinkingBudget,
  });
}

/** The params `chat.params` starts from (JSON: unset fields are absent here, `undefined` in the sandbox). */
export function chatParamsOf(request: NeutralRequest): JsonObject {
  const topK = request.options.providerParams?.top_k;
  return omitUndefined({
    model: request.model,
    temperature: request.options.temperature,
    topP: request.options.topP,
    topK: typeof topK === "number" ? topK : undefined,
    maxOutputTokens: request.options.maxTokens,
    options: productOptions(request),
  });
}

const isNumber = (value: Json | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);
const isPositiveInt = (value: Json | undefined) => isNumber(value) && Number.isInteger(value) && value > 0;

/** Why a plugin's return is not usable params, or null (then it replaces the params). */
export function chatParamsProblem(value: Json): string | null {
  if (!isJsonObject(value)) return "chat.params must return the params object (or undefined for no change)";
  const { model, temperature, topP, topK, maxOutputTokens, options } = value;
  if (model !== undefined && typeof model !== "string") return "model must be a string";
  if (temperature !== undefined && !(isNumber(temperature) && temperature >= 0))
    return "temperature must be a number ≥ 0";
  if (topP !== undefined && !(isNumber(topP) && topP >= 0 && topP <= 1))
    return "topP must be between 0 and 1";
  if (topK !== undefined && !isPositiveInt(topK)) return "topK must be a positive integer";
  if (maxOutputTokens !== undefined && !isPositiveInt(maxOutputTokens))
    return "maxOutputTokens must be a positive integer";
  if (options === undefined) return null;
  if (!isJsonObject(options)) return "options must be an object";
  const refused = Object.keys(options).find((key) => REFUSED_OPTION_KEYS.includes(key));
  if (refused !== undefined)
    return `options.${refused} is not a provider option here (set the request's own fields or the params instead)`;
  const budget = options.thinkingBudget;
  if (budget !== undefined && !(isNumber(budget) && Number.isInteger(budget) && budget >= 0))
    return "options.thinkingBudget must be an integer ≥ 0";
  return null;
}

export interface ApplyOptions {
  /** Where the request goes; OpenAI has no top_k, so topK is not sent there. Null: unknown (prepare). */
  provider: ProviderName | null;
  /** The workspace's ceilings (config `modelOutputLimits`) over the built-in table and default. */
  limits?: ModelOutputLimits;
}

/**
 * The request with `params` (validated by chatParamsProblem) mapped back:
 * maxTokens (clamped to the model's output limit), temperature, topP, top_k,
 * and `options` merged over the product's own options, the plugin's keys winning.
 */
export function applyChatParams(
  request: NeutralRequest,
  params: JsonObject,
  apply: ApplyOptions,
): NeutralRequest {
  const returned = isJsonObject(params.options) ? params.options : {};
  const merged: JsonObject = { ...productOptions(request), ...returned };
  const { reasoning, thinkingBudget, ...provider } = merged;
  for (const key of NEUTRAL_OPTION_KEYS) delete provider[key];
  const topK = params.topK;
  if (isNumber(topK) && apply.provider !== "openai") provider.top_k = topK;
  const max = params.maxOutputTokens;
  const ceiling = modelOutputLimit(request.model, apply.limits);
  const options: Options = {
    ...(request.options.dynamicInstructions === undefined
      ? {}
      : { dynamicInstructions: request.options.dynamicInstructions }),
    ...(isNumber(max) ? { maxTokens: Math.min(max, ceiling) } : {}),
    ...(isNumber(params.temperature) ? { temperature: params.temperature } : {}),
    ...(isNumber(params.topP) ? { topP: params.topP } : {}),
    ...(isNumber(thinkingBudget) ? { thinkingBudget } : {}),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(Object.keys(provider).length > 0 ? { providerParams: provider } : {}),
  };
  return { ...request, options };
}

export interface ChatParamsInput {
  workspaceUid: string;
  requestId: string;
  request: NeutralRequest;
  plugins: readonly DeployedPlugin[];
  provider: ProviderName | null;
  config?: WorkspaceConfig;
  /** Tests only: a shorter plugin bound. */
  timeoutMs?: number;
}

export interface ChatParamsOutcome {
  /** What goes to the provider: the input request when no plugin has chat.params. */
  request: NeutralRequest;
  records: RunRecord[];
  /** The params the last plugin produced (null when none ran). */
  params: JsonObject | null;
}

/** Runs the workspace's `chat.params` plugins on a request; never throws, never fails the call. */
export async function runChatParams(env: PluginEnv, input: ChatParamsInput): Promise<ChatParamsOutcome> {
  if (!input.plugins.some((plugin) => plugin.hooks.includes("chat.params"))) {
    return { request: input.request, records: [], params: null };
  }
  const { value, records } = await runPluginHook(env, {
    workspaceUid: input.workspaceUid,
    requestId: input.requestId,
    hook: "chat.params",
    value: chatParamsOf(input.request),
    plugins: input.plugins,
    validate: chatParamsProblem,
    extensions: [CHAT_PARAMS_EXTENSION],
    ...(input.config === undefined ? {} : { config: input.config }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  });
  const next = applyChatParams(input.request, value, {
    provider: input.provider,
    ...(input.config?.modelOutputLimits === undefined ? {} : { limits: input.config.modelOutputLimits }),
  });
  // applyChatParams changes only the options of a request already checked.
  const checked = withValidOptions(input.request, next.options);
  if (!checked.ok) {
    // Every plugin's return was checked, so this is our own mapping's fault: fail open.
    console.error("chat.params produced an invalid request; sending the request without it", checked.error);
    return { request: input.request, records, params: value };
  }
  return { request: checked.value, records, params: value };
}
