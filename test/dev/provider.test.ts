import Anthropic, { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import OpenAI, { RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../dev/provider/server";

const base = (id: string) => `http://provider.test/${id}`;
const received = async (id: string) => (await fetch(`${base(id)}/_received`)).json<ReceivedRequest[]>();
// No retries: an injected failure must surface once, as the SDK reports it.
const openai = (id: string) => new OpenAI({ apiKey: "sk-test", baseURL: `${base(id)}/v1`, maxRetries: 0 });
const anthropic = (id: string) => new Anthropic({ apiKey: "ant-test", baseURL: base(id), maxRetries: 0 });

describe("the fake LLM provider, OpenAI-style", () => {
  it("echoes the last user message to the official client and records the request", async () => {
    const id = crypto.randomUUID();
    const completion = await openai(id).chat.completions.create({
      model: "gpt-test",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "first" },
        { role: "assistant", content: "echo: first" },
        { role: "user", content: [{ type: "text", text: "hello there" }] },
      ],
    });
    expect(completion).toMatchObject({
      model: "gpt-test",
      choices: [{ message: { role: "assistant", content: "echo: hello there" }, finish_reason: "stop" }],
      usage: { completion_tokens: 3 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const [request, ...rest] = await received(id);
    expect(rest).toEqual([]);
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-test", "x-api-key": null },
      body: {
        model: "gpt-test",
        messages: expect.arrayContaining([{ role: "system", content: "be brief" }]),
      },
    });
  });

  it("streams chunks the official client joins, usage last when asked for", async () => {
    const id = crypto.randomUUID();
    const stream = await openai(id).chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "stream me please" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finishes.push(...chunk.choices.map((c) => c.finish_reason));
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: stream me please");
    expect(finishes.at(-1)).toBe("stop");
    expect(usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect((await received(id))[0]?.body).toMatchObject({ stream: true });
  });

  it("works with the client's stream helper and its final completion", async () => {
    const id = crypto.randomUUID();
    const runner = openai(id).chat.completions.stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "helper" }],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("echo: helper");
    expect(final.model).toBe("gpt-test");
  });

  it("fails the next call as told, then recovers", async () => {
    const id = crypto.randomUUID();
    await fetch(`${base(id)}/_fail`, {
      method: "POST",
      body: JSON.stringify({ status: 429, body: { error: { message: "slow down", type: "rate_limit" } } }),
    });
    const call = () =>
      openai(id).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "x" }] });
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, message: expect.stringContaining("slow down") });
    expect((await call()).choices[0]?.message.content).toBe("echo: x");
    expect(await received(id)).toHaveLength(2);
  });
});

describe("the fake LLM provider, Anthropic-style", () => {
  it("echoes the last user message to the official client and records the request", async () => {
    const id = crypto.randomUUID();
    const message = await anthropic(id).messages.create({
      model: "claude-test",
      max_tokens: 100,
      system: "be brief",
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "echo: first" },
        { role: "user", content: [{ type: "text", text: "hello there" }] },
      ],
    });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "echo: hello there" }],
      stop_reason: "end_turn",
      usage: { output_tokens: 3 },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(await received(id)).toEqual([
      {
        method: "POST",
        path: "/v1/messages",
        // This SDK version sends the API key as a bearer token, not `x-api-key`, and its own dated version.
        headers: { authorization: "Bearer ant-test", "x-api-key": null, "anthropic-version": "2026-10-21" },
        body: expect.objectContaining({ model: "claude-test", max_tokens: 100, system: "be brief" }),
      },
    ]);
  });

  it("streams the real event sequence, which the official client accumulates", async () => {
    const id = crypto.randomUUID();
    const stream = anthropic(id).messages.stream({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "stream me please" }],
    });
    const types: string[] = [];
    let text = "";
    stream.on("streamEvent", (event) => types.push(event.type));
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe("echo: stream me please");
    expect(final).toMatchObject({
      content: [{ type: "text", text: "echo: stream me please" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3, output_tokens: 4 },
    });
    expect(types.filter((t) => t !== "content_block_delta")).toEqual([
      "message_start",
      "content_block_start",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(types.filter((t) => t === "content_block_delta").length).toBeGreaterThan(1);
    expect((await received(id))[0]?.body).toMatchObject({ stream: true });
  });

  it("passes an injected error to the official client in Anthropic's shape", async () => {
    const id = crypto.randomUUID();
    await fetch(`${base(id)}/_fail`, { method: "POST", body: JSON.stringify({ status: 529 }) });
    const error = await anthropic(id)
      .messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnthropicAPIError);
    expect(error).toMatchObject({ status: 529, error: { type: "error", error: { type: "api_error" } } });
  });
});

describe("the fake LLM provider's routes", () => {
  it("records and refuses unknown paths, and keeps each id's traffic apart", async () => {
    const id = crypto.randomUUID();
    const res = await fetch(`${base(id)}/v1/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(await received(id)).toEqual([
      expect.objectContaining({ method: "POST", path: "/v1/completions", body: {} }),
    ]);
    expect(await received(crypto.randomUUID())).toEqual([]);
  });

  it("records `x-api-key` as classic Anthropic clients send it, and refuses a body without messages", async () => {
    const id = crypto.randomUUID();
    const res = await fetch(`${base(id)}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "ant-raw", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-test" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect((await received(id))[0]?.headers).toEqual({
      authorization: null,
      "x-api-key": "ant-raw",
      "anthropic-version": "2023-06-01",
    });
  });
});
