import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../shared/json";
import { neutralToOpenai, openaiToNeutral } from "../../../shared/llm/openai";
import type { NeutralRequest } from "../../../shared/llm/request";

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const call = (id: string, city: string) => ({
  id,
  type: "function",
  function: { name: "get_weather", arguments: JSON.stringify({ city }) },
});

/** A typical agent turn: tool calls, their results, a follow-up, options and extra fields. */
const typical: JsonObject = {
  model: "gpt-4.1",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Weather in Paris and Rome?" },
    { role: "assistant", content: null, tool_calls: [call("call_1", "Paris"), call("call_2", "Rome")] },
    { role: "tool", tool_call_id: "call_1", content: "18°C" },
    { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "21°C" }] },
    { role: "user", content: [{ type: "text", text: "And Oslo?" }] },
    { role: "assistant", content: "Checking Oslo.", tool_calls: [call("call_3", "Oslo")] },
    { role: "tool", tool_call_id: "call_3", content: "4°C" },
    { role: "assistant", content: "Rome is warmest." },
  ],
  tools: [
    { type: "function", function: { name: "get_weather", description: "Current weather", parameters } },
  ],
  tool_choice: "auto",
  max_completion_tokens: 256,
  temperature: 0.3,
  top_p: 0.9,
  reasoning_effort: "low",
  seed: 42,
  stream: true,
  stream_options: { include_usage: true },
};

const use = (id: string, city: string) => ({
  type: "tool_use" as const,
  id,
  name: "get_weather",
  input: { city },
});
const result = (toolUseId: string, content: string | { type: "text"; text: string }[]) => ({
  type: "tool_result" as const,
  toolUseId,
  content,
});

const neutral: NeutralRequest = {
  model: "gpt-4.1",
  system: "You are terse.",
  messages: [
    { role: "user", content: "Weather in Paris and Rome?" },
    { role: "assistant", content: [use("call_1", "Paris"), use("call_2", "Rome")] },
    { role: "user", content: [result("call_1", "18°C"), result("call_2", [{ type: "text", text: "21°C" }])] },
    { role: "user", content: [{ type: "text", text: "And Oslo?" }] },
    { role: "assistant", content: [{ type: "text", text: "Checking Oslo." }, use("call_3", "Oslo")] },
    { role: "user", content: [result("call_3", "4°C")] },
    { role: "assistant", content: "Rome is warmest." },
  ],
  tools: [{ name: "get_weather", description: "Current weather", inputSchema: parameters }],
  options: {
    maxTokens: 256,
    temperature: 0.3,
    topP: 0.9,
    reasoning: { effort: "low" },
    providerParams: { tool_choice: "auto", seed: 42, stream_options: { include_usage: true } },
  },
};

const problemsOf = (body: JsonObject) => {
  const mapped = openaiToNeutral(body);
  return mapped.ok ? [] : mapped.error;
};

const minimal = (messages: JsonObject[], extra: JsonObject = {}): JsonObject => ({
  model: "m",
  messages,
  ...extra,
});

describe("openaiToNeutral", () => {
  it("maps a typical request (tool calls merge into user turns, extras become providerParams)", () => {
    expect(openaiToNeutral(typical)).toEqual({ ok: true, value: { request: neutral, stream: true } });
  });

  it("round-trips a typical request exactly, streaming or not", () => {
    expect(neutralToOpenai(neutral, true)).toEqual(typical);
    const { stream: _stream, stream_options: _options, ...plain } = typical;
    const mapped = openaiToNeutral(plain);
    expect(mapped.ok && mapped.value.stream).toBe(false);
    expect(mapped.ok && neutralToOpenai(mapped.value.request, false)).toEqual(plain);
  });

  it("joins system and developer messages and accepts text parts", () => {
    const body = minimal([
      { role: "developer", content: "A" },
      { role: "system", content: [{ type: "text", text: "B" }] },
      { role: "user", content: "hi" },
    ]);
    const mapped = openaiToNeutral(body);
    expect(mapped.ok && mapped.value.request.system).toBe("A\n\nB");
  });

  it("treats null and empty-list fields as absent (SDKs echo response messages back)", () => {
    const body = minimal(
      [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello", refusal: null, annotations: [], tool_calls: [] },
      ],
      { temperature: null, max_tokens: null },
    );
    expect(openaiToNeutral(body)).toEqual({
      ok: true,
      value: {
        request: {
          model: "m",
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: "hello" },
          ],
          tools: [],
          options: {},
        },
        stream: false,
      },
    });
  });

  it("takes the deprecated max_tokens and sends max_completion_tokens", () => {
    const mapped = openaiToNeutral(minimal([{ role: "user", content: "hi" }], { max_tokens: 100 }));
    expect(mapped.ok && mapped.value.request.options.maxTokens).toBe(100);
    expect(mapped.ok && neutralToOpenai(mapped.value.request, false).max_completion_tokens).toBe(100);
    expect(problemsOf(minimal([], { max_tokens: 1, max_completion_tokens: 2 }))).toEqual([
      { path: "/max_tokens", message: "differs from max_completion_tokens; send only one" },
    ]);
  });

  it("reads empty arguments as no arguments and refuses arguments that are not a JSON object", () => {
    const ask = { role: "user", content: "go" };
    const withArguments = (args: string) =>
      minimal([
        ask,
        {
          role: "assistant",
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }],
        },
      ]);
    const mapped = openaiToNeutral(withArguments(""));
    expect(mapped.ok && mapped.value.request.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "c", name: "f", input: {} }],
    });
    expect(problemsOf(withArguments("{oops"))).toEqual([
      { path: "/messages/1/tool_calls/0/function/arguments", message: "is not valid JSON" },
    ]);
    expect(problemsOf(withArguments("[1]"))).toEqual([
      { path: "/messages/1/tool_calls/0/function/arguments", message: "must encode a JSON object" },
    ]);
  });

  it("refuses what the neutral request cannot hold, with the client's paths", () => {
    const body = minimal(
      [
        {
          role: "user",
          name: "ann",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: {} },
          ],
        },
        { role: "function", name: "f", content: "x" },
      ],
      {
        tools: [
          { type: "function", function: { name: "f", parameters: {}, strict: true } },
          { type: "custom", custom: { name: "g" } },
        ],
        stream: "yes",
      },
    );
    expect(problemsOf(body)).toEqual([
      { path: "/messages/0/name", message: '"name" is not supported' },
      {
        path: "/messages/0/content/1/type",
        message: 'content part type "image_url" is not supported (only text)',
      },
      {
        path: "/messages/1/role",
        message: 'role "function" is not supported (system, developer, user, assistant, tool)',
      },
      { path: "/tools/0/function/strict", message: '"strict" is not supported' },
      { path: "/tools/1/custom", message: '"custom" is not supported' },
      { path: "/tools/1/type", message: 'tool type "custom" is not supported (only "function")' },
      { path: "/tools/1/function", message: "must be an object" },
      { path: "/stream", message: "must be a boolean" },
    ]);
  });

  it("reports neutral-level problems at the OpenAI paths they came from", () => {
    const body = minimal(
      [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [call("a", "Paris"), call("b", "Rome")] },
        { role: "tool", tool_call_id: "a", content: "ok" },
        { role: "tool", tool_call_id: "zzz", content: "ok" },
        { role: "user", content: 3 },
      ],
      {
        tools: [{ type: "function", function: { name: "bad name", parameters: [] } }],
        max_tokens: 0,
        temperature: "hot",
        system: "smuggled",
      },
    );
    expect(problemsOf(body)).toEqual([
      { path: "/messages/4/content", message: "must be a string or an array of content parts" },
    ]);
    body.messages = (body.messages as JsonObject[]).slice(0, 4);
    expect(problemsOf(body)).toEqual([
      { path: "/tools/0/function/name", message: "tool names are 1-64 letters, digits, '_' or '-'" },
      { path: "/tools/0/function/parameters", message: "must be a JSON object" },
      { path: "/max_tokens", message: "must be positive" },
      { path: "/temperature", message: "must be a number" },
    ]);
    body.tools = [];
    body.max_tokens = 10;
    delete body.temperature;
    expect(problemsOf(body)).toEqual([
      { path: "/system", message: '"system" belongs to the request itself, not to providerParams' },
      {
        path: "/messages/1/tool_calls/1/id",
        message: 'tool_use "b" is not answered by a tool_result in the next user message',
      },
      {
        path: "/messages/3/tool_call_id",
        message: 'tool_result toolUseId "zzz" answers no tool_use of the preceding assistant message',
      },
    ]);
  });
});

describe("neutralToOpenai", () => {
  const base: NeutralRequest = { messages: [{ role: "user", content: "hi" }], tools: [], options: {} };

  it("appends dynamic instructions to the system message", () => {
    const body = neutralToOpenai({ ...base, system: "S", options: { dynamicInstructions: "D" } }, false);
    expect(body.messages).toEqual([
      { role: "system", content: "S\n\nD" },
      { role: "user", content: "hi" },
    ]);
  });

  it("drops tool_choice when a hook removed every tool, and never lets providerParams set reserved keys", () => {
    const options = {
      providerParams: { tool_choice: "required", parallel_tool_calls: false, stream: true, n: 2 },
    };
    expect(neutralToOpenai({ ...base, options }, false)).toEqual({
      messages: [{ role: "user", content: "hi" }],
      n: 2,
    });
  });

  it("sends tool results before the user's text in the same turn, without isError", () => {
    const request: NeutralRequest = {
      ...base,
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [use("a", "Paris"), { type: "text", text: "one" }, { type: "text", text: "two" }],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "also" },
            { ...result("a", "boom"), isError: true },
          ],
        },
      ],
      options: { thinkingBudget: 1000, reasoning: "high" },
    };
    expect(neutralToOpenai(request, false)).toEqual({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "one" },
            { type: "text", text: "two" },
          ],
          tool_calls: [call("a", "Paris")],
        },
        { role: "tool", tool_call_id: "a", content: "boom" },
        { role: "user", content: [{ type: "text", text: "also" }] },
      ],
    });
  });
});
