// The neutral LLM request: what a request hook receives
// and must return, and what the OpenAI/Anthropic mappings translate to and from.
// Pure: no I/O, so the gateway, `llm/prepare` and tests share one definition.
// Type aliases, not interfaces, so a request is assignable to `Json` as is.
import { z } from "zod";
import type { Json, JsonObject } from "../json";
import { err, ok, type Result } from "../result";
import { pointer, zodProblems, type RequestProblem } from "./problems";

export type { RequestProblem } from "./problems";

export type TextBlock = {
  type: "text";
  text: string;
};
export type ToolUseBlock = {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
};
export type ToolResultBlock = {
  type: "tool_result";
  toolUseId: string;
  content: string | TextBlock[];
  isError?: boolean;
};
export type Block = TextBlock | ToolUseBlock | ToolResultBlock;

export type Message = {
  role: "user" | "assistant";
  content: string | Block[];
};

export type Tool = {
  name: string;
  description?: string;
  inputSchema: JsonObject;
};

export type Options = {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  thinkingBudget?: number;
  /** Provider-neutral reasoning settings; `{ effort }` is what both mappings understand. */
  reasoning?: Json;
  /**
   * Extra instructions for this call only, kept apart from `system` so a hook
   * can vary them per turn without touching the stable prompt. One string
   * (not a list): the mappings append it to the system text after a blank line.
   */
  dynamicInstructions?: string;
  /** Provider body fields the neutral form has no name for, sent as given. */
  providerParams?: JsonObject;
};

export type NeutralRequest = {
  model?: string;
  system?: string;
  messages: Message[];
  tools: Tool[];
  options: Options;
};

/** The tool name rule both OpenAI and Anthropic enforce. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Body keys the request itself owns: a hook must not smuggle them in through
 * `providerParams` (a `stream` there would change what the proxy answers).
 */
export const RESERVED_PROVIDER_PARAMS = ["model", "messages", "tools", "system", "stream"] as const;

const jsonObject = z.record(z.string(), z.json());
const nonEmpty = z.string().min(1, "must not be empty");

// The literal's message only shows inside tool_result content (elsewhere the block union names the types).
const textBlockSchema = z.strictObject({
  type: z.literal("text", { error: 'block type must be "text" here' }),
  text: z.string(),
});
const toolUseBlockSchema = z.strictObject({
  type: z.literal("tool_use"),
  id: nonEmpty,
  name: nonEmpty,
  input: jsonObject,
});
const toolResultBlockSchema = z.strictObject({
  type: z.literal("tool_result"),
  toolUseId: nonEmpty,
  content: z.union([z.string(), z.array(textBlockSchema)], {
    error: "must be a string or an array of text blocks",
  }),
  isError: z.boolean().optional(),
});
const blockSchema = z.discriminatedUnion(
  "type",
  [textBlockSchema, toolUseBlockSchema, toolResultBlockSchema],
  {
    error: 'block type must be "text", "tool_use" or "tool_result"',
  },
);

const messageSchema = z.strictObject({
  role: z.enum(["user", "assistant"], { error: 'role must be "user" or "assistant"' }),
  content: z.union([z.string(), z.array(blockSchema)], {
    error: "must be a string or an array of content blocks",
  }),
});

const toolSchema = z.strictObject({
  name: z.string().regex(TOOL_NAME, "tool names are 1-64 letters, digits, '_' or '-'"),
  description: z.string().optional(),
  inputSchema: jsonObject,
});

const optionsSchema = z.strictObject({
  maxTokens: z.number().int("must be an integer").positive("must be positive").optional(),
  temperature: z.number().nonnegative("must not be negative").optional(),
  topP: z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").optional(),
  thinkingBudget: z.number().int("must be an integer").nonnegative("must not be negative").optional(),
  reasoning: z.json().optional(),
  dynamicInstructions: z.string().optional(),
  providerParams: jsonObject.optional(),
});

export const NeutralRequestSchema: z.ZodType<NeutralRequest> = z.strictObject({
  model: nonEmpty.optional(),
  system: z.string().optional(),
  messages: z.array(messageSchema),
  tools: z.array(toolSchema),
  options: optionsSchema,
});

/** Shape, tool names and tool-use/tool-result pairing; problems in document order. */
export function validateNeutralRequest(value: unknown): Result<NeutralRequest, RequestProblem[]> {
  const parsed = NeutralRequestSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) return err(zodProblems(parsed.error.issues));
  const request = parsed.data;
  const problems = [
    ...toolProblems(request),
    ...paramProblems(request),
    ...pairingProblems(request.messages),
  ];
  return problems.length > 0 ? err(problems) : ok(request);
}

/**
 * `request`, already valid, with `options` in place of its own, checked as
 * validateNeutralRequest would check the whole: only the options are parsed,
 * since nothing else changed (the LLM path's plugins change only options).
 */
export function withValidOptions(
  request: NeutralRequest,
  options: unknown,
): Result<NeutralRequest, RequestProblem[]> {
  const parsed = optionsSchema.safeParse(options, { reportInput: true });
  if (!parsed.success) return err(zodProblems(parsed.error.issues, ["options"]));
  const next = { ...request, options: parsed.data };
  const problems = paramProblems(next);
  return problems.length > 0 ? err(problems) : ok(next);
}

function toolProblems({ tools }: NeutralRequest): RequestProblem[] {
  const firstAt = new Map<string, number>();
  const problems: RequestProblem[] = [];
  tools.forEach(({ name }, i) => {
    const first = firstAt.get(name);
    if (first === undefined) firstAt.set(name, i);
    else
      problems.push({
        path: pointer("tools", i, "name"),
        message: `tool name "${name}" is already used by /tools/${first}`,
      });
  });
  return problems;
}

function paramProblems({ options }: NeutralRequest): RequestProblem[] {
  const params = options.providerParams ?? {};
  return RESERVED_PROVIDER_PARAMS.filter((key) => key in params).map((key) => ({
    path: pointer("options", "providerParams", key),
    message: `"${key}" belongs to the request itself, not to providerParams`,
  }));
}

type Located<B> = { block: B; index: number };

const blocksOf = <T extends Block["type"]>(message: Message | undefined, type: T) =>
  typeof message?.content === "string" || message === undefined
    ? []
    : message.content.flatMap((block, index) =>
        block.type === type ? [{ block: block as Extract<Block, { type: T }>, index }] : [],
      );

/**
 * Providers refuse a conversation whose tool calls and results do not line up,
 * so a hook that breaks the pairing must fail here, not at the provider. A
 * trailing assistant message may leave its tool_uses unanswered: the caller is
 * about to run them. The order of results is not checked (providers accept any).
 */
export function pairingProblems(messages: readonly Message[]): RequestProblem[] {
  const problems: RequestProblem[] = [];
  const usedAt = new Map<string, string>();
  messages.forEach((msg, i) => {
    const at = (index: number, ...rest: string[]) => pointer("messages", i, "content", index, ...rest);
    const uses = blocksOf(msg, "tool_use");
    const results = blocksOf(msg, "tool_result");
    for (const { block, index } of uses) {
      if (msg.role !== "assistant")
        problems.push({ path: at(index), message: "tool_use blocks belong in assistant messages" });
      const first = usedAt.get(block.id);
      if (first === undefined) usedAt.set(block.id, at(index));
      else
        problems.push({
          path: at(index, "id"),
          message: `tool_use id "${block.id}" is already used at ${first}`,
        });
    }
    if (msg.role === "assistant") {
      for (const { index } of results)
        problems.push({ path: at(index), message: "tool_result blocks belong in user messages" });
      problems.push(...unanswered(uses, messages[i + 1], i));
    } else {
      problems.push(...unmatched(results, messages[i - 1], i));
    }
  });
  return problems;
}

function unanswered(uses: Located<ToolUseBlock>[], next: Message | undefined, i: number): RequestProblem[] {
  if (next === undefined) return [];
  const answered = new Set(
    next.role === "user" ? blocksOf(next, "tool_result").map(({ block }) => block.toolUseId) : [],
  );
  return uses
    .filter(({ block }) => !answered.has(block.id))
    .map(({ block, index }) => ({
      path: pointer("messages", i, "content", index, "id"),
      message:
        next.role === "user"
          ? `tool_use "${block.id}" is not answered by a tool_result in the next user message`
          : `tool_use "${block.id}" is not answered: the next message is not a user message`,
    }));
}

function unmatched(
  results: Located<ToolResultBlock>[],
  previous: Message | undefined,
  i: number,
): RequestProblem[] {
  const offered = new Set(
    previous?.role === "assistant" ? blocksOf(previous, "tool_use").map(({ block }) => block.id) : [],
  );
  const seen = new Set<string>();
  const problems: RequestProblem[] = [];
  for (const { block, index } of results) {
    const path = pointer("messages", i, "content", index, "toolUseId");
    const id = block.toolUseId;
    if (!offered.has(id))
      problems.push({
        path,
        message: `tool_result toolUseId "${id}" answers no tool_use of the preceding assistant message`,
      });
    else if (seen.has(id)) problems.push({ path, message: `tool_use "${id}" is already answered` });
    seen.add(id);
  }
  return problems;
}

/** The system text a provider gets: `system`, then this call's dynamic instructions. */
export function systemText({ system, options }: NeutralRequest): string | undefined {
  const parts = [system, options.dynamicInstructions].filter((part) => part !== undefined);
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/** A provider's reasoning-effort string, when `reasoning` has the `{ effort }` shape both understand. */
export function reasoningEffort({ options }: NeutralRequest): string | undefined {
  const reasoning = options.reasoning;
  if (typeof reasoning !== "object" || reasoning === null || Array.isArray(reasoning)) return undefined;
  return typeof reasoning.effort === "string" ? reasoning.effort : undefined;
}

/** providerParams without the keys the request owns (validation refuses them; this is the belt). */
export function providerParams({ options }: NeutralRequest): JsonObject {
  const params: JsonObject = { ...options.providerParams };
  for (const key of RESERVED_PROVIDER_PARAMS) delete params[key];
  return params;
}
