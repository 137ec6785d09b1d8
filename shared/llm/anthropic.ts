// Anthropic Messages request bodies <-> the neutral request. The shapes are
// close (same roles, same block kinds), so paths map one to one except for
// renamed fields. What the neutral form cannot hold (images, documents,
// thinking blocks, cache_control, server tools) is refused, never dropped.
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
} from "./request";

/** Body keys with a neutral counterpart; `thinking` and `output_config` map only in part (below). */
const MAPPED = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "stream",
  "max_tokens",
  "temperature",
  "top_p",
]);

/** Neutral pointer -> Anthropic pointer where the names differ. */
const OPTION_ORIGINS: [string, string][] = [
  ["/options/maxTokens", "/max_tokens"],
  ["/options/topP", "/top_p"],
  ["/options/thinkingBudget", "/thinking/budget_tokens"],
  ["/options/reasoning", "/output_config/effort"],
  ["/options/providerParams", ""],
];

interface Mapping {
  problems: RequestProblem[];
  origins: Map<string, string>;
}

export function anthropicToNeutral(
  body: JsonObject,
): Result<{ request: NeutralRequest; stream: boolean }, RequestProblem[]> {
  const cx: Mapping = { problems: [], origins: new Map(OPTION_ORIGINS) };
  const messages = body.messages;
  const candidate = compact({
    model: body.model,
    system: mapSystem(body.system, cx),
    messages: Array.isArray(messages)
      ? messages.map((raw, i) => mapMessage(raw, pointer("messages", i), cx))
      : messages,
    tools: mapTools(body.tools, cx),
    options: mapOptions(body),
  });
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") cx.problems.push({ path: "/stream", message: "must be a boolean" });
  if (cx.problems.length > 0 || typeof stream !== "boolean") return err(cx.problems);
  const validated = validateNeutralRequest(candidate);
  return validated.ok ? ok({ request: validated.value, stream }) : err(relocate(validated.error, cx.origins));
}

/** Text blocks become one system text, joined like OpenAI's several system messages. */
function mapSystem(system: Json | undefined, cx: Mapping): string | undefined {
  if (system === undefined || typeof system === "string") return system;
  if (!Array.isArray(system)) {
    cx.problems.push({ path: "/system", message: "must be a string or an array of text blocks" });
    return undefined;
  }
  return textBlocks(system, "/system", cx)
    .map((block) => (isJsonObject(block) && typeof block.text === "string" ? block.text : ""))
    .join("\n\n");
}

function textBlocks(blocks: Json[], at: string, cx: Mapping): Json[] {
  return blocks.map((block, j) => {
    const blockAt = `${at}/${j}`;
    if (!isJsonObject(block)) return block;
    if (block.type !== "text") {
      cx.problems.push({
        path: `${blockAt}/type`,
        message: `${describe(block.type)} is not supported here (only text)`,
      });
      return block;
    }
    cx.problems.push(...unsupportedKeys(block, ["type", "text"], blockAt));
    if (typeof block.text !== "string")
      cx.problems.push({ path: `${blockAt}/text`, message: "must be a string" });
    return block;
  });
}

const describe = (type: Json | undefined) => `content block type ${JSON.stringify(type ?? null)}`;

function mapMessage(raw: Json, at: string, cx: Mapping): Json {
  if (!isJsonObject(raw)) return raw;
  cx.problems.push(...unsupportedKeys(raw, ["role", "content"], at));
  const content = raw.content;
  return compact({
    role: raw.role,
    content: Array.isArray(content)
      ? content.map((block, k) => mapBlock(block, `${at}/content/${k}`, cx))
      : content,
  });
}

function mapBlock(block: Json, at: string, cx: Mapping): Json {
  if (!isJsonObject(block)) return block;
  switch (block.type) {
    case "text":
      cx.problems.push(...unsupportedKeys(block, ["type", "text"], at));
      return compact({ type: "text", text: block.text });
    case "tool_use":
      cx.problems.push(...unsupportedKeys(block, ["type", "id", "name", "input"], at));
      return compact({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    case "tool_result": {
      cx.problems.push(...unsupportedKeys(block, ["type", "tool_use_id", "content", "is_error"], at));
      cx.origins.set(`${at}/toolUseId`, `${at}/tool_use_id`);
      cx.origins.set(`${at}/isError`, `${at}/is_error`);
      const content = block.content;
      return compact({
        type: "tool_result",
        toolUseId: block.tool_use_id,
        // Anthropic lets a result omit its content; the neutral form says "no blocks".
        content: isAbsent(content)
          ? []
          : Array.isArray(content)
            ? textBlocks(content, `${at}/content`, cx)
            : content,
        isError: block.is_error,
      });
    }
    default:
      cx.problems.push({
        path: `${at}/type`,
        message: `${describe(block.type)} is not supported (text, tool_use, tool_result)`,
      });
      return block;
  }
}

function mapTools(tools: Json | undefined, cx: Mapping): Json {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return tools;
  return tools.map((tool, i) => {
    const at = pointer("tools", i);
    if (!isJsonObject(tool)) return tool;
    if (!isAbsent(tool.type) && tool.type !== "custom") {
      // Server tools (web search, code execution, ...) run at Anthropic; the
      // neutral request only describes tools the caller executes.
      const type = JSON.stringify(tool.type);
      cx.problems.push({
        path: `${at}/type`,
        message: `tool type ${type} is not supported (only custom tools)`,
      });
      return {};
    }
    cx.problems.push(...unsupportedKeys(tool, ["type", "name", "description", "input_schema"], at));
    cx.origins.set(`${at}/inputSchema`, `${at}/input_schema`);
    return compact({ name: tool.name, description: tool.description, inputSchema: tool.input_schema });
  });
}

function mapOptions(body: JsonObject): JsonObject {
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !MAPPED.has(key)));
  // Only the exact "enabled with a budget" shape is a thinkingBudget; adaptive
  // or disabled thinking stays a provider parameter, sent back unchanged.
  const thinking = body.thinking;
  const budget =
    isJsonObject(thinking) &&
    thinking.type === "enabled" &&
    typeof thinking.budget_tokens === "number" &&
    Object.keys(thinking).length === 2
      ? thinking.budget_tokens
      : undefined;
  if (budget !== undefined) delete rest.thinking;
  // output_config.effort is Anthropic's reasoning effort; the rest of output_config stays as given.
  const config = body.output_config;
  const effort = isJsonObject(config) && typeof config.effort === "string" ? config.effort : undefined;
  if (isJsonObject(config) && effort !== undefined) {
    const others = Object.fromEntries(Object.entries(config).filter(([key]) => key !== "effort"));
    if (Object.keys(others).length > 0) rest.output_config = others;
    else delete rest.output_config;
  }
  return compact({
    maxTokens: body.max_tokens,
    temperature: body.temperature,
    topP: body.top_p,
    thinkingBudget: budget,
    reasoning: effort === undefined ? undefined : { effort },
    providerParams: Object.keys(rest).length > 0 ? rest : undefined,
  });
}

/**
 * The Messages body for a neutral request. `max_tokens` is sent only when the
 * request has one (Anthropic requires it; inventing a limit here would hide a
 * missing one). `dynamicInstructions` join the system text.
 */
export function neutralToAnthropic(request: NeutralRequest, stream: boolean): JsonObject {
  const body = providerParams(request);
  const { maxTokens, temperature, topP, thinkingBudget } = request.options;
  Object.assign(
    body,
    compact({
      model: request.model,
      system: systemText(request),
      messages: request.messages.map(toAnthropicMessage),
      max_tokens: maxTokens,
      temperature,
      top_p: topP,
    }),
  );
  if (request.tools.length > 0) {
    body.tools = request.tools.map(({ name, description, inputSchema }) =>
      compact({ name, description, input_schema: inputSchema }),
    );
  } else {
    // A hook may have removed every tool; a leftover tool_choice would be refused.
    delete body.tool_choice;
  }
  if (thinkingBudget !== undefined) body.thinking = { type: "enabled", budget_tokens: thinkingBudget };
  const effort = reasoningEffort(request);
  if (effort !== undefined) {
    const config = body.output_config;
    body.output_config = { ...(isJsonObject(config) ? config : {}), effort };
  }
  if (stream) body.stream = true;
  return body;
}

function toAnthropicMessage({ role, content }: Message): JsonObject {
  return { role, content: typeof content === "string" ? content : content.map(toAnthropicBlock) };
}

function toAnthropicBlock(block: Block): JsonObject {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "tool_use")
    return { type: "tool_use", id: block.id, name: block.name, input: block.input };
  const content = block.content;
  return compact({
    type: "tool_result",
    tool_use_id: block.toolUseId,
    // No blocks is sent as no content, the way Anthropic's own examples omit it.
    content: typeof content !== "string" && content.length === 0 ? undefined : content,
    is_error: block.isError,
  });
}
