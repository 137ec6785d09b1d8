import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../shared/json";
import { anthropicToNeutral, neutralToAnthropic } from "../../../shared/llm/anthropic";
import type { NeutralRequest } from "../../../shared/llm/request";

const inputSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const use = (id: string, city: string) => ({ type: "tool_use", id, name: "get_weather", input: { city } });

/** A typical agent turn: parallel tool use, results (one an error), a follow-up, options and extras. */
const typical: JsonObject = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  system: "You are terse.",
  messages: [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      role: "assistant",
      content: [{ type: "text", text: "Checking." }, use("toolu_1", "Paris"), use("toolu_2", "Rome")],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: [{ type: "text", text: "timeout" }],
          is_error: true,
        },
        { type: "text", text: "Retry Rome?" },
      ],
    },
    { role: "assistant", content: [use("toolu_3", "Rome")] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_3" }] },
  ],
  tools: [{ name: "get_weather", description: "Current weather", input_schema: inputSchema }],
  tool_choice: { type: "auto" },
  temperature: 1,
  top_p: 0.95,
  thinking: { type: "enabled", budget_tokens: 2048 },
  output_config: { effort: "high", format: { type: "json_schema", schema: { type: "object" } } },
  metadata: { user_id: "u1" },
  stream: true,
};

const neutralUse = (id: string, city: string) => ({
  type: "tool_use" as const,
  id,
  name: "get_weather",
  input: { city },
});

const neutral: NeutralRequest = {
  model: "claude-sonnet-4-5",
  system: "You are terse.",
  messages: [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        neutralUse("toolu_1", "Paris"),
        neutralUse("toolu_2", "Rome"),
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", toolUseId: "toolu_1", content: "18°C" },
        {
          type: "tool_result",
          toolUseId: "toolu_2",
          content: [{ type: "text", text: "timeout" }],
          isError: true,
        },
        { type: "text", text: "Retry Rome?" },
      ],
    },
    { role: "assistant", content: [neutralUse("toolu_3", "Rome")] },
    { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_3", content: [] }] },
  ],
  tools: [{ name: "get_weather", description: "Current weather", inputSchema }],
  options: {
    maxTokens: 1024,
    temperature: 1,
    topP: 0.95,
    thinkingBudget: 2048,
    reasoning: { effort: "high" },
    providerParams: {
      tool_choice: { type: "auto" },
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      metadata: { user_id: "u1" },
    },
  },
};

const problemsOf = (body: JsonObject) => {
  const mapped = anthropicToNeutral(body);
  return mapped.ok ? [] : mapped.error;
};

const minimal = (messages: JsonObject[], extra: JsonObject = {}): JsonObject => ({
  model: "m",
  max_tokens: 10,
  messages,
  ...extra,
});

describe("anthropicToNeutral", () => {
  it("maps a typical request", () => {
    expect(anthropicToNeutral(typical)).toEqual({ ok: true, value: { request: neutral, stream: true } });
  });

  it("round-trips a typical request exactly, streaming or not", () => {
    expect(neutralToAnthropic(neutral, true)).toEqual(typical);
    const { stream: _stream, ...plain } = typical;
    const mapped = anthropicToNeutral(plain);
    expect(mapped.ok && mapped.value.stream).toBe(false);
    expect(mapped.ok && neutralToAnthropic(mapped.value.request, false)).toEqual(plain);
  });

  it("keeps thinking shapes other than an enabled budget as provider params", () => {
    const body = minimal([{ role: "user", content: "hi" }], { thinking: { type: "adaptive" } });
    const mapped = anthropicToNeutral(body);
    expect(mapped.ok && mapped.value.request.options).toEqual({
      maxTokens: 10,
      providerParams: { thinking: { type: "adaptive" } },
    });
    expect(mapped.ok && neutralToAnthropic(mapped.value.request, false)).toEqual(body);
  });

  it("refuses a body without messages", () => {
    expect(problemsOf({ model: "m", max_tokens: 1 })).toEqual([
      { path: "/messages", message: "is required" },
    ]);
    expect(problemsOf({ model: "m", messages: {} })).toEqual([
      { path: "/messages", message: "must be an array" },
    ]);
  });

  it("joins a text-block system prompt", () => {
    const body = minimal([{ role: "user", content: "hi" }], {
      system: [
        { type: "text", text: "A" },
        { type: "text", text: "B" },
      ],
    });
    const mapped = anthropicToNeutral(body);
    expect(mapped.ok && mapped.value.request.system).toBe("A\n\nB");
  });

  it("refuses what the neutral request cannot hold, with the client's paths", () => {
    const body = minimal(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "see", cache_control: { type: "ephemeral" } },
            { type: "image", source: { type: "url", url: "https://x" } },
          ],
        },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "s" }] },
      ],
      {
        system: [{ type: "text", text: 3 }],
        tools: [
          { type: "web_search_20250305", name: "web_search" },
          { name: "f", input_schema: {}, defer_loading: true },
        ],
        stream: 1,
      },
    );
    expect(problemsOf(body)).toEqual([
      { path: "/system/0/text", message: "must be a string" },
      { path: "/messages/0/content/0/cache_control", message: '"cache_control" is not supported' },
      {
        path: "/messages/0/content/1/type",
        message: 'content block type "image" is not supported (text, tool_use, tool_result)',
      },
      {
        path: "/messages/1/content/0/type",
        message: 'content block type "thinking" is not supported (text, tool_use, tool_result)',
      },
      {
        path: "/tools/0/type",
        message: 'tool type "web_search_20250305" is not supported (only custom tools)',
      },
      { path: "/tools/1/defer_loading", message: '"defer_loading" is not supported' },
      { path: "/stream", message: "must be a boolean" },
    ]);
    const imageResult = minimal([
      { role: "assistant", content: [use("a", "x")] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: [{ type: "image" }] }] },
    ]);
    expect(problemsOf(imageResult)).toEqual([
      {
        path: "/messages/1/content/0/content/0/type",
        message: 'content block type "image" is not supported here (only text)',
      },
    ]);
  });

  it("reports neutral-level problems at the Anthropic paths they came from", () => {
    const body = minimal(
      [
        { role: "user", content: "go" },
        { role: "assistant", content: [use("a", "Paris"), use("b", "Rome")] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: "ok", is_error: "no" },
            { type: "tool_result", tool_use_id: "zzz", content: "ok" },
          ],
        },
      ],
      {
        tools: [{ name: "get_weather", input_schema: "nope" }],
        max_tokens: 1.5,
        top_p: 3,
        thinking: { type: "enabled", budget_tokens: -1 },
      },
    );
    expect(problemsOf(body)).toEqual([
      { path: "/messages/2/content/0/is_error", message: "must be a boolean" },
      { path: "/tools/0/input_schema", message: "must be a JSON object" },
      { path: "/max_tokens", message: "must be an integer" },
      { path: "/top_p", message: "must be between 0 and 1" },
      { path: "/thinking/budget_tokens", message: "must not be negative" },
    ]);
    body.tools = [];
    body.max_tokens = 10;
    delete body.top_p;
    delete body.thinking;
    (body.messages as JsonObject[])[2] = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: "ok" },
        { type: "tool_result", tool_use_id: "zzz", content: "ok" },
      ],
    };
    expect(problemsOf(body)).toEqual([
      {
        path: "/messages/1/content/1/id",
        message: 'tool_use "b" is not answered by a tool_result in the next user message',
      },
      {
        path: "/messages/2/content/1/tool_use_id",
        message: 'tool_result toolUseId "zzz" answers no tool_use of the preceding assistant message',
      },
    ]);
  });
});

describe("neutralToAnthropic", () => {
  const base: NeutralRequest = { messages: [{ role: "user", content: "hi" }], tools: [], options: {} };

  it("sends max_tokens only when given, and dynamic instructions in the system text", () => {
    expect(neutralToAnthropic(base, false)).toEqual({ messages: [{ role: "user", content: "hi" }] });
    const body = neutralToAnthropic({ ...base, options: { maxTokens: 5, dynamicInstructions: "D" } }, false);
    expect(body).toEqual({ system: "D", max_tokens: 5, messages: [{ role: "user", content: "hi" }] });
  });

  it("drops tool_choice without tools and keeps reserved keys out of providerParams", () => {
    const options = { providerParams: { tool_choice: { type: "any" }, model: "other", top_k: 5 } };
    expect(neutralToAnthropic({ ...base, model: "m", options }, false)).toEqual({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      top_k: 5,
    });
  });
});
