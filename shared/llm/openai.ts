// OpenAI Chat Completions request bodies <-> the neutral request. Anything the
// neutral form cannot hold (images, audio, `strict` tools, message names) is
// refused with a problem rather than dropped: a silently changed prompt is worse
// than a clear 4xx. Field names and paths follow the client's body.
import { isJsonObject, type Json, type JsonObject } from "../json";
import { err, ok, type Result } from "../result";
import { compact, isAbsent, pointer, relocate, unsupportedKeys, type RequestProblem } from "./problems";
import {
  providerParams,
  reasoningEffort,
  systemText,
  validateNeutralRequest,
  type Block,
  type Message,
  type NeutralRequest,
  type TextBlock,
} from "./request";

/** Body keys with a neutral counterpart; every other key travels in `options.providerParams`. */
const MAPPED = new Set([
  "model",
  "messages",
  "tools",
  "stream",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "reasoning_effort",
]);

/** A function without `parameters` takes no arguments; say so in a schema Anthropic also accepts. */
const NO_PARAMETERS: JsonObject = { type: "object", properties: {} };

interface Mapping {
  problems: RequestProblem[];
  /** Neutral pointer -> pointer into the OpenAI body, for problems found after mapping. */
  origins: Map<string, string>;
  system: string[];
  messages: JsonObject[];
  /** The user message that collects the current run of `tool` messages. */
  toolTurn?: { index: number; blocks: JsonObject[] };
}

export function openaiToNeutral(
  body: JsonObject,
): Result<{ request: NeutralRequest; stream: boolean }, RequestProblem[]> {
  const cx: Mapping = { problems: [], origins: new Map(), system: [], messages: [] };
  if (Array.isArray(body.messages))
    body.messages.forEach((raw, i) => mapMessage(raw, pointer("messages", i), cx));
  else cx.problems.push({ path: "/messages", message: "must be an array of messages" });
  const candidate = compact({
    model: body.model,
    system: cx.system.length > 0 ? cx.system.join("\n\n") : undefined,
    messages: cx.messages,
    tools: mapTools(body.tools, cx),
    options: mapOptions(body, cx),
  });
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") cx.problems.push({ path: "/stream", message: "must be a boolean" });
  if (cx.problems.length > 0 || typeof stream !== "boolean") return err(cx.problems);
  const validated = validateNeutralRequest(candidate);
  return validated.ok ? ok({ request: validated.value, stream }) : err(relocate(validated.error, cx.origins));
}

function mapMessage(raw: Json, at: string, cx: Mapping): void {
  if (!isJsonObject(raw)) {
    cx.problems.push({ path: at, message: "must be an object" });
    return;
  }
  const role = raw.role;
  if (role !== "tool") cx.toolTurn = undefined;
  switch (role) {
    case "system":
    case "developer": {
      // The neutral request has one system text; OpenAI lets it be spread over
      // several messages, so they are joined in order.
      cx.problems.push(...unsupportedKeys(raw, ["role", "content"], at));
      const content = mapContent(raw.content, `${at}/content`, cx);
      if (cx.system.length === 0) cx.origins.set("/system", `${at}/content`);
      if (typeof content === "string") cx.system.push(content);
      else cx.system.push(...content.map((block) => block.text));
      return;
    }
    case "user":
      cx.problems.push(...unsupportedKeys(raw, ["role", "content"], at));
      push(cx, at, { role: "user", content: mapContent(raw.content, `${at}/content`, cx) });
      return;
    case "assistant":
      mapAssistant(raw, at, cx);
      return;
    case "tool":
      mapTool(raw, at, cx);
      return;
    default:
      cx.problems.push({
        path: `${at}/role`,
        message: `role ${JSON.stringify(role ?? null)} is not supported (system, developer, user, assistant, tool)`,
      });
  }
}

function push(cx: Mapping, at: string, message: JsonObject): number {
  const index = cx.messages.push(message) - 1;
  cx.origins.set(pointer("messages", index), at);
  return index;
}

/** String content as is; content parts as text blocks (the only kind the neutral form has). */
function mapContent(content: Json | undefined, at: string, cx: Mapping): string | TextBlock[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    cx.problems.push({ path: at, message: "must be a string or an array of content parts" });
    return "";
  }
  return content.flatMap((part, j): TextBlock[] => {
    const partAt = `${at}/${j}`;
    if (!isJsonObject(part)) {
      cx.problems.push({ path: partAt, message: "must be an object" });
      return [];
    }
    if (part.type !== "text") {
      const type = JSON.stringify(part.type ?? null);
      cx.problems.push({
        path: `${partAt}/type`,
        message: `content part type ${type} is not supported (only text)`,
      });
      return [];
    }
    cx.problems.push(...unsupportedKeys(part, ["type", "text"], partAt));
    if (typeof part.text === "string") return [{ type: "text", text: part.text }];
    cx.problems.push({ path: `${partAt}/text`, message: "must be a string" });
    return [];
  });
}

function mapAssistant(raw: JsonObject, at: string, cx: Mapping): void {
  cx.problems.push(...unsupportedKeys(raw, ["role", "content", "tool_calls"], at));
  const calls = isAbsent(raw.tool_calls) ? [] : raw.tool_calls;
  if (!Array.isArray(calls)) {
    cx.problems.push({ path: `${at}/tool_calls`, message: "must be an array" });
    return;
  }
  if (calls.length === 0 && typeof raw.content === "string") {
    push(cx, at, { role: "assistant", content: raw.content });
    return;
  }
  // Text first, then the calls: OpenAI keeps them in separate fields, so there
  // is no interleaving to preserve.
  const texts = isAbsent(raw.content) ? [] : mapContent(raw.content, `${at}/content`, cx);
  const blocks: JsonObject[] = typeof texts === "string" ? [{ type: "text", text: texts }] : [...texts];
  const index = push(cx, at, { role: "assistant", content: blocks });
  if (typeof texts === "string") cx.origins.set(pointer("messages", index, "content", 0), `${at}/content`);
  calls.forEach((call, j) => {
    const callAt = pointer("tool_calls", j);
    const neutralAt = pointer("messages", index, "content", blocks.length);
    const block = mapToolCall(call, at + callAt, cx);
    if (block === undefined) return;
    blocks.push(block);
    cx.origins.set(neutralAt, at + callAt);
    cx.origins.set(`${neutralAt}/name`, `${at}${callAt}/function/name`);
    cx.origins.set(`${neutralAt}/input`, `${at}${callAt}/function/arguments`);
  });
}

function mapToolCall(call: Json, at: string, cx: Mapping): JsonObject | undefined {
  if (!isJsonObject(call)) {
    cx.problems.push({ path: at, message: "must be an object" });
    return undefined;
  }
  cx.problems.push(...unsupportedKeys(call, ["id", "type", "function"], at));
  if (call.type !== undefined && call.type !== "function") {
    const type = JSON.stringify(call.type);
    cx.problems.push({
      path: `${at}/type`,
      message: `tool call type ${type} is not supported (only "function")`,
    });
  }
  const fn = call.function;
  if (!isJsonObject(fn)) {
    cx.problems.push({ path: `${at}/function`, message: "must be an object" });
    return undefined;
  }
  cx.problems.push(...unsupportedKeys(fn, ["name", "arguments"], `${at}/function`));
  const input = parseArguments(fn.arguments, `${at}/function/arguments`, cx);
  return compact({ type: "tool_use", id: call.id, name: fn.name, input });
}

function parseArguments(text: Json | undefined, at: string, cx: Mapping): JsonObject | undefined {
  if (typeof text !== "string") {
    cx.problems.push({ path: at, message: "must be a string of JSON" });
    return undefined;
  }
  // Some OpenAI-compatible models emit "" for a call without arguments.
  if (text.trim() === "") return {};
  try {
    const input: unknown = JSON.parse(text);
    if (isJsonObject(input)) return input;
    cx.problems.push({ path: at, message: "must encode a JSON object" });
  } catch {
    cx.problems.push({ path: at, message: "is not valid JSON" });
  }
  return undefined;
}

/** Consecutive `tool` messages answer one assistant turn: they become one user message. */
function mapTool(raw: JsonObject, at: string, cx: Mapping): void {
  cx.problems.push(...unsupportedKeys(raw, ["role", "content", "tool_call_id"], at));
  const content = raw.content === undefined ? undefined : mapContent(raw.content, `${at}/content`, cx);
  if (cx.toolTurn === undefined) {
    const blocks: JsonObject[] = [];
    cx.toolTurn = { index: push(cx, at, { role: "user", content: blocks }), blocks };
  }
  const neutralAt = pointer("messages", cx.toolTurn.index, "content", cx.toolTurn.blocks.length);
  cx.toolTurn.blocks.push(compact({ type: "tool_result", toolUseId: raw.tool_call_id, content }));
  cx.origins.set(neutralAt, at);
  cx.origins.set(`${neutralAt}/toolUseId`, `${at}/tool_call_id`);
}

function mapTools(tools: Json | undefined, cx: Mapping): Json {
  if (isAbsent(tools)) return [];
  if (!Array.isArray(tools)) return tools ?? null;
  return tools.map((tool, i) => {
    const at = pointer("tools", i);
    if (!isJsonObject(tool)) return tool;
    cx.problems.push(...unsupportedKeys(tool, ["type", "function"], at));
    if (tool.type !== "function") {
      const type = JSON.stringify(tool.type ?? null);
      cx.problems.push({
        path: `${at}/type`,
        message: `tool type ${type} is not supported (only "function")`,
      });
    }
    const fn = tool.function;
    if (!isJsonObject(fn)) {
      cx.problems.push({ path: `${at}/function`, message: "must be an object" });
      return {};
    }
    cx.problems.push(...unsupportedKeys(fn, ["name", "description", "parameters"], `${at}/function`));
    cx.origins.set(at, `${at}/function`);
    cx.origins.set(`${at}/inputSchema`, `${at}/function/parameters`);
    return compact({
      name: fn.name,
      description: fn.description,
      inputSchema: fn.parameters ?? NO_PARAMETERS,
    });
  });
}

function mapOptions(body: JsonObject, cx: Mapping): JsonObject {
  const given = (key: string) => (body[key] === null ? undefined : body[key]);
  const completion = given("max_completion_tokens");
  const legacy = given("max_tokens");
  // max_tokens is the deprecated spelling; both mean the same limit.
  if (completion !== undefined && legacy !== undefined && completion !== legacy)
    cx.problems.push({ path: "/max_tokens", message: "differs from max_completion_tokens; send only one" });
  cx.origins.set("/options/maxTokens", completion !== undefined ? "/max_completion_tokens" : "/max_tokens");
  cx.origins.set("/options/temperature", "/temperature");
  cx.origins.set("/options/topP", "/top_p");
  cx.origins.set("/options/providerParams", "");
  const effort = given("reasoning_effort");
  if (effort !== undefined && typeof effort !== "string")
    cx.problems.push({ path: "/reasoning_effort", message: "must be a string" });
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !MAPPED.has(key)));
  return compact({
    maxTokens: completion ?? legacy,
    temperature: given("temperature"),
    topP: given("top_p"),
    reasoning: typeof effort === "string" ? { effort } : undefined,
    providerParams: Object.keys(rest).length > 0 ? rest : undefined,
  });
}

/**
 * The Chat Completions body for a neutral request. Lossy only where OpenAI has
 * no field: `thinkingBudget` and `isError` are not sent, `reasoning` only as
 * its `effort`, and `dynamicInstructions` joins the system message.
 */
export function neutralToOpenai(request: NeutralRequest, stream: boolean): JsonObject {
  const body = providerParams(request);
  const system = systemText(request);
  const messages: JsonObject[] = system === undefined ? [] : [{ role: "system", content: system }];
  messages.push(...request.messages.flatMap(toOpenaiMessages));
  Object.assign(body, compact({ model: request.model, messages }));
  if (request.tools.length > 0) {
    body.tools = request.tools.map(({ name, description, inputSchema }) => ({
      type: "function",
      function: compact({ name, description, parameters: inputSchema }),
    }));
  } else {
    // OpenAI refuses these without tools, and a hook may have removed them all.
    delete body.tool_choice;
    delete body.parallel_tool_calls;
  }
  const { maxTokens, temperature, topP } = request.options;
  const effort = reasoningEffort(request);
  Object.assign(
    body,
    compact({ max_completion_tokens: maxTokens, temperature, top_p: topP, reasoning_effort: effort }),
  );
  if (stream) body.stream = true;
  return body;
}

const textParts = (blocks: readonly TextBlock[]): JsonObject[] =>
  blocks.map(({ text }) => ({ type: "text", text }));

const only = <T extends Block["type"]>(blocks: readonly Block[], type: T) =>
  blocks.filter((block): block is Extract<Block, { type: T }> => block.type === type);

function toOpenaiMessages({ role, content }: Message): JsonObject[] {
  if (typeof content === "string") return [{ role, content }];
  const texts = only(content, "text");
  if (role === "assistant") {
    const uses = only(content, "tool_use");
    // A single text beside tool calls is how OpenAI itself writes that turn.
    const single = texts.length === 1 && uses.length > 0 ? texts[0] : undefined;
    const message: JsonObject = {
      role,
      content: single ? single.text : texts.length > 0 ? textParts(texts) : null,
    };
    if (uses.length > 0)
      message.tool_calls = uses.map(({ id, name, input }) => ({
        id,
        type: "function",
        function: { name, arguments: JSON.stringify(input) },
      }));
    return [message];
  }
  // Tool messages must directly follow the assistant turn they answer, so they
  // go before any text the user added in the same message.
  const results = only(content, "tool_result").map(({ toolUseId, content: result }) => ({
    role: "tool",
    tool_call_id: toolUseId,
    content: typeof result === "string" ? result : textParts(result),
  }));
  return texts.length > 0 || results.length === 0
    ? [...results, { role, content: textParts(texts) }]
    : results;
}
