import { describe, expect, it } from "vitest";
import type { Json } from "../../../shared/json";
import {
  systemText,
  validateNeutralRequest,
  withValidOptions,
  type Message,
  type NeutralRequest,
} from "../../../shared/llm/request";

const weather = {
  name: "get_weather",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
};

const use = (id: string, name = "get_weather") => ({ type: "tool_use", id, name, input: { city: "Paris" } });
const result = (toolUseId: string, content: Json = "18°C") => ({ type: "tool_result", toolUseId, content });

const request = (messages: Json[], extra: Record<string, Json> = {}): Record<string, Json> => ({
  messages,
  tools: [weather],
  options: {},
  ...extra,
});

const problemsOf = (value: unknown) => {
  const validated = validateNeutralRequest(value);
  return validated.ok ? [] : validated.error;
};

describe("validateNeutralRequest: shapes", () => {
  it("accepts a full request and returns it unchanged", () => {
    const full: NeutralRequest = {
      model: "gpt-x",
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: [{ type: "text", text: "Checking." }, use("c1") as Message["content"][0]],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "c1",
              content: [{ type: "text", text: "18°C" }],
              isError: false,
            },
            { type: "text", text: "Thanks" },
          ],
        },
      ] as Message[],
      tools: [{ ...weather, description: "Current weather" }],
      options: {
        maxTokens: 512,
        temperature: 0.2,
        topP: 0.9,
        thinkingBudget: 2048,
        reasoning: { effort: "low" },
        dynamicInstructions: "Answer in French.",
        providerParams: { seed: 7, metadata: { user: "u1" } },
      },
    };
    expect(validateNeutralRequest(full)).toEqual({ ok: true, value: full });
  });

  it("accepts an empty conversation and a trailing assistant tool_use", () => {
    expect(problemsOf(request([]))).toEqual([]);
    expect(
      problemsOf(
        request([
          { role: "user", content: "hi" },
          { role: "assistant", content: [use("a")] },
        ]),
      ),
    ).toEqual([]);
  });

  it("refuses unknown keys, missing fields and wrong types with pointer paths", () => {
    expect(problemsOf({ messages: [], extra: 1 })).toEqual([
      { path: "/tools", message: "is required" },
      { path: "/options", message: "is required" },
      { path: "/extra", message: 'unknown field "extra"' },
    ]);
    expect(
      problemsOf(request([{ role: "user", content: [{ type: "text", text: 1, cache_control: {} }] }])),
    ).toEqual([
      { path: "/messages/0/content/0/text", message: "must be a string" },
      { path: "/messages/0/content/0/cache_control", message: 'unknown field "cache_control"' },
    ]);
    expect(problemsOf(request([{ role: "system", content: 3 }]))).toEqual([
      { path: "/messages/0/role", message: 'role must be "user" or "assistant"' },
      { path: "/messages/0/content", message: "must be a string or an array of content blocks" },
    ]);
  });

  it("names the block type and the field inside a block that is wrong", () => {
    expect(problemsOf(request([{ role: "user", content: [{ type: "image", url: "x" }] }]))).toEqual([
      {
        path: "/messages/0/content/0/type",
        message: 'block type must be "text", "tool_use" or "tool_result"',
      },
    ]);
    expect(
      problemsOf(
        request([{ role: "assistant", content: [{ type: "tool_use", id: "", name: "x", input: [] }] }]),
      ),
    ).toEqual([
      { path: "/messages/0/content/0/id", message: "must not be empty" },
      { path: "/messages/0/content/0/input", message: "must be a JSON object" },
    ]);
    expect(
      problemsOf(
        request([
          { role: "assistant", content: [use("a")] },
          { role: "user", content: [result("a", [{ type: "image" }])] },
        ]),
      ),
    ).toEqual([
      { path: "/messages/1/content/0/content/0/type", message: 'block type must be "text" here' },
      { path: "/messages/1/content/0/content/0/text", message: "is required" },
    ]);
  });

  it("checks options", () => {
    const options = {
      maxTokens: 1.5,
      temperature: -1,
      topP: 2,
      thinkingBudget: -3,
      dynamicInstructions: ["x"],
    };
    expect(problemsOf(request([], { options }))).toEqual([
      { path: "/options/maxTokens", message: "must be an integer" },
      { path: "/options/temperature", message: "must not be negative" },
      { path: "/options/topP", message: "must be between 0 and 1" },
      { path: "/options/thinkingBudget", message: "must not be negative" },
      { path: "/options/dynamicInstructions", message: "must be a string" },
    ]);
    expect(problemsOf(request([], { options: { providerParams: { stream: true, seed: 1 } } }))).toEqual([
      {
        path: "/options/providerParams/stream",
        message: '"stream" belongs to the request itself, not to providerParams',
      },
    ]);
  });

  it("requires valid, unique tool names", () => {
    const tools = [
      weather,
      { name: "bad name", inputSchema: {} },
      weather,
      { name: "x".repeat(65), inputSchema: {} },
    ];
    expect(problemsOf(request([], { tools }))).toEqual([
      { path: "/tools/1/name", message: "tool names are 1-64 letters, digits, '_' or '-'" },
      { path: "/tools/3/name", message: "tool names are 1-64 letters, digits, '_' or '-'" },
    ]);
    expect(problemsOf(request([], { tools: [weather, weather] }))).toEqual([
      { path: "/tools/1/name", message: 'tool name "get_weather" is already used by /tools/0' },
    ]);
  });
});

describe("validateNeutralRequest: tool-use/tool-result pairing", () => {
  const ask = { role: "user", content: "Weather in Paris and Rome?" };

  it("accepts results answering the preceding uses, in any order, beside text", () => {
    const messages = [
      ask,
      { role: "assistant", content: [{ type: "text", text: "Checking." }, use("a"), use("b")] },
      { role: "user", content: [result("b"), result("a"), { type: "text", text: "and?" }] },
      { role: "assistant", content: "Both mild." },
    ];
    expect(problemsOf(request(messages))).toEqual([]);
  });

  it("refuses a result without a preceding use", () => {
    expect(problemsOf(request([{ role: "user", content: [result("a")] }]))).toEqual([
      {
        path: "/messages/0/content/0/toolUseId",
        message: 'tool_result toolUseId "a" answers no tool_use of the preceding assistant message',
      },
    ]);
    // A use two messages back does not count: the answer must come right after.
    const late = [
      ask,
      { role: "assistant", content: [use("a")] },
      ask,
      { role: "user", content: [result("a")] },
    ];
    expect(problemsOf(request(late))).toEqual([
      {
        path: "/messages/1/content/0/id",
        message: 'tool_use "a" is not answered by a tool_result in the next user message',
      },
      {
        path: "/messages/3/content/0/toolUseId",
        message: 'tool_result toolUseId "a" answers no tool_use of the preceding assistant message',
      },
    ]);
  });

  it("refuses a result with the wrong id (and reports the use it leaves unanswered)", () => {
    const messages = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("x")] },
    ];
    expect(problemsOf(request(messages))).toEqual([
      {
        path: "/messages/1/content/0/id",
        message: 'tool_use "a" is not answered by a tool_result in the next user message',
      },
      {
        path: "/messages/2/content/0/toolUseId",
        message: 'tool_result toolUseId "x" answers no tool_use of the preceding assistant message',
      },
    ]);
  });

  it("refuses an unanswered use when a next message exists", () => {
    const partly = [
      ask,
      { role: "assistant", content: [use("a"), use("b")] },
      { role: "user", content: [result("a")] },
    ];
    expect(problemsOf(request(partly))).toEqual([
      {
        path: "/messages/1/content/1/id",
        message: 'tool_use "b" is not answered by a tool_result in the next user message',
      },
    ]);
    const noResults = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "user", content: "never mind" },
    ];
    expect(problemsOf(request(noResults))).toHaveLength(1);
    const thenAssistant = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "assistant", content: "hm" },
    ];
    expect(problemsOf(request(thenAssistant))).toEqual([
      {
        path: "/messages/1/content/0/id",
        message: 'tool_use "a" is not answered: the next message is not a user message',
      },
    ]);
  });

  it("refuses a use in a user message and a result in an assistant message", () => {
    expect(problemsOf(request([{ role: "user", content: [use("a")] }]))).toEqual([
      { path: "/messages/0/content/0", message: "tool_use blocks belong in assistant messages" },
    ]);
    const messages = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "assistant", content: [result("a")] },
    ];
    expect(problemsOf(request(messages))).toEqual([
      {
        path: "/messages/1/content/0/id",
        message: 'tool_use "a" is not answered: the next message is not a user message',
      },
      { path: "/messages/2/content/0", message: "tool_result blocks belong in user messages" },
    ]);
  });

  it("refuses duplicate tool_use ids and a use answered twice", () => {
    const duplicate = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a")] },
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a")] },
    ];
    expect(problemsOf(request(duplicate))).toEqual([
      {
        path: "/messages/3/content/0/id",
        message: 'tool_use id "a" is already used at /messages/1/content/0',
      },
    ]);
    const twice = [
      ask,
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a"), result("a")] },
    ];
    expect(problemsOf(request(twice))).toEqual([
      { path: "/messages/2/content/1/toolUseId", message: 'tool_use "a" is already answered' },
    ]);
  });
});

describe("systemText", () => {
  it("appends this call's dynamic instructions after the system prompt", () => {
    const base: NeutralRequest = { messages: [], tools: [], options: {} };
    expect(systemText(base)).toBeUndefined();
    expect(systemText({ ...base, system: "S" })).toBe("S");
    expect(systemText({ ...base, options: { dynamicInstructions: "D" } })).toBe("D");
    expect(systemText({ ...base, system: "S", options: { dynamicInstructions: "D" } })).toBe("S\n\nD");
  });
});

describe("withValidOptions: the options of a valid request, checked alone", () => {
  it("agrees with validating the whole request, for valid and invalid options alike", () => {
    const base = validateNeutralRequest(request([{ role: "user", content: "hi" }], { model: "m" }));
    if (!base.ok) throw new Error("the base request is valid");
    const cases: Json[] = [
      {},
      { maxTokens: 100, temperature: 0.5, topP: 1, thinkingBudget: 0, providerParams: { seed: 3 } },
      { reasoning: { effort: "low" }, dynamicInstructions: "be brief" },
      { maxTokens: 1.5 },
      { temperature: -1 },
      { topP: 2 },
      { providerParams: { stream: true, model: "x" } },
      { providerParams: "seed" },
      { unknown: 1 },
      "options",
    ];
    for (const options of cases) {
      const whole = validateNeutralRequest({ ...base.value, options });
      const alone = withValidOptions(base.value, options);
      expect(alone, JSON.stringify(options)).toEqual(whole);
    }
    // Valid and invalid cases both occur, so the agreement covers each.
    const outcomes = cases.map((options) => withValidOptions(base.value, options).ok);
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });
});
