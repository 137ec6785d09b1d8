// The LLM proxy through the real local server (`wrangler dev`, the api Worker handing
// /llm/* to the gateway) and the demo LLM provider, with the official `openai` and
// `@anthropic-ai/sdk` clients in Node, on the workspace `npm start` seeds
// (scripts/seed-demo.mjs): the demo's tool-filtering hook, then its fast RAG hook
// with a nested `rayrun.lambda`, then that hook failing closed with the gate off.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { UnprocessableEntityError } from "openai";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { enrichMessages } from "../../dev/examples/fast-rag.ts";
// @ts-expect-error -- plain ESM script without type declarations
import { DEMO_PROVIDER_ID, DEMO_PROVIDER_KEY, demoLlmConfig } from "../../scripts/seed-demo.mjs";
import { useSeededDemo } from "./seeded-demo.ts";

interface Demo {
  workspace: string;
  /** admin, hooks:read, hooks:write and tools:call: also what the SDKs use as apiKey. */
  key: string;
}

/** What the fake provider recorded (dev/provider/server.ts `ReceivedRequest`). */
interface Received {
  path: string;
  headers: { authorization: string | null; "x-api-key": string | null };
  body: {
    stream?: boolean;
    messages: { role: string; content: unknown }[];
    tools?: { name?: string; function?: { name: string } }[];
  };
}

const QUESTION = "When does the office open? I need to read a file first.";
const TOOL_NAMES = ["fs_read", "shell_exec", "fs_write", "web_search"];
const schema = { type: "object" as const, properties: { path: { type: "string" } } };
const openaiTools = TOOL_NAMES.map((name) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: schema },
}));
const anthropicTools = TOOL_NAMES.map((name) => ({
  name,
  description: `${name} tool`,
  input_schema: schema,
}));
const openaiBody = {
  model: "gpt-demo",
  messages: [{ role: "user" as const, content: QUESTION }],
  tools: openaiTools,
};
const anthropicBody = {
  model: "claude-demo",
  max_tokens: 100,
  messages: [{ role: "user" as const, content: QUESTION }],
  tools: anthropicTools,
};

let demo: Demo;
const base = () => inject("serverUrl");
const providerRoot = () => `${inject("providerUrl")}/${DEMO_PROVIDER_ID}`;

async function received(): Promise<Received[]> {
  const res = await fetch(`${providerRoot()}/_received`);
  return (await res.json()) as Received[];
}

/** Runs `call`, then answers what the provider received during it. */
async function receivedDuring(call: () => Promise<unknown>): Promise<Received[]> {
  const before = (await received()).length;
  await call();
  return (await received()).slice(before);
}

const toolNames = (r: Received | undefined) =>
  (r?.body.tools ?? []).map((tool) => tool.function?.name ?? tool.name ?? "");

const openai = (headers: Record<string, string> = {}) =>
  new OpenAI({
    apiKey: demo.key,
    baseURL: `${base()}/llm/${demo.workspace}/openai/v1`,
    maxRetries: 0,
    defaultHeaders: headers,
  });

const anthropic = (headers: Record<string, string> = {}) =>
  new Anthropic({
    apiKey: demo.key,
    baseURL: `${base()}/llm/${demo.workspace}/anthropic`,
    maxRetries: 0,
    defaultHeaders: headers,
  });

/** Replaces the seeded config with `changes` applied (admin, If-Match). */
async function putConfig(changes: Record<string, unknown>) {
  const path = `${base()}/v1/workspaces/${demo.workspace}/config`;
  const headers = { authorization: `Bearer ${demo.key}`, "content-type": "application/json" };
  const etag = (await fetch(path, { headers })).headers.get("etag") ?? "";
  const res = await fetch(path, {
    method: "PUT",
    headers: { ...headers, "if-match": etag },
    body: JSON.stringify({ ...demoLlmConfig(inject("providerUrl")), ...changes }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The provider never sees the Rayrun key: the workspace's provider key replaces it. */
function expectProviderKey(r: Received | undefined, provider: "openai" | "anthropic") {
  const header = provider === "openai" ? "authorization" : "x-api-key";
  const value = provider === "openai" ? `Bearer ${DEMO_PROVIDER_KEY}` : DEMO_PROVIDER_KEY;
  expect(r?.headers[header]).toBe(value);
  expect(JSON.stringify(r?.headers)).not.toContain(demo.key);
}

/** The retrieval lambda as the hook runs it, on the neutral messages (`loop` is the loop's name). */
const enriched = (loop: string) =>
  enrichMessages({ messages: [{ role: "user", content: QUESTION }], loop }).messages;

/** The enriched question's text (a string, as the question was). */
function enrichedQuestion(loop: string): string {
  const content = enriched(loop)[0]?.content;
  return typeof content === "string" ? content : "";
}

const seeded = useSeededDemo("llm-e2e");
beforeAll(() => {
  demo = seeded.demo() as Demo;
});

describe("the seeded request-policy hook (lib/request-policy.ts:transform) with the official SDKs", () => {
  it("openai: a completion and a stream; the provider received only fs_read and fs_write", async () => {
    let text = "";
    const got = await receivedDuring(async () => {
      const completion = await openai().chat.completions.create(openaiBody);
      expect(completion.choices[0]?.message.content).toBe(`echo: ${QUESTION}`);
      const stream = await openai().chat.completions.create({ ...openaiBody, stream: true });
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    });
    expect(text).toBe(`echo: ${QUESTION}`);
    expect(got.map((r) => [r.path, r.body.stream ?? false, toolNames(r)])).toEqual([
      ["/v1/chat/completions", false, ["fs_read", "fs_write"]],
      ["/v1/chat/completions", true, ["fs_read", "fs_write"]],
    ]);
    expect(got[0]?.body.messages).toEqual(openaiBody.messages);
    expectProviderKey(got[0], "openai");
  });

  it("anthropic: a message and a stream; the provider received only fs_read and fs_write", async () => {
    let text = "";
    const got = await receivedDuring(async () => {
      const message = await anthropic().messages.create(anthropicBody);
      expect(message.content).toEqual([{ type: "text", text: `echo: ${QUESTION}` }]);
      const stream = await anthropic().messages.create({ ...anthropicBody, stream: true });
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta")
          text += event.delta.text;
      }
    });
    expect(text).toBe(`echo: ${QUESTION}`);
    expect(got.map((r) => [r.path, r.body.stream ?? false, toolNames(r)])).toEqual([
      ["/v1/messages", false, ["fs_read", "fs_write"]],
      ["/v1/messages", true, ["fs_read", "fs_write"]],
    ]);
    expect(got[0]?.body.messages).toEqual(anthropicBody.messages);
    expectProviderKey(got[0], "anthropic");
  });
});

describe("the fast RAG hook (lib/fast-rag-hook.ts:transform) calling lib/fast-rag.ts:enrichMessages", () => {
  const hook = { pre_llm_hook: { source: "lib/fast-rag-hook.ts:transform", scope: "all" } };

  it("with code_execution.sys_lambda on, the provider received the enriched messages", async () => {
    await putConfig({ ...hook, code_execution: { sys_lambda: true } });
    expect(enrichedQuestion("main")).toMatch(/^Retrieved context \(loop main\):\n- \[office-hours\] /);
    expect(enrichedQuestion("main")).toContain(`\n\n${QUESTION}`);

    let streamed = "";
    const got = await receivedDuring(async () => {
      const completion = await openai().chat.completions.create(openaiBody);
      expect(completion.choices[0]?.message.content).toBe(`echo: ${enrichedQuestion("main")}`);
      const stream = await anthropic({ "x-rayrun-loop": "researcher" }).messages.create({
        ...anthropicBody,
        stream: true,
      });
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          streamed += event.delta.text;
        }
      }
    });
    expect(got.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/messages"]);
    expect(got[0]?.body.messages).toEqual(enriched("main"));
    expect(got[1]?.body.messages).toEqual(enriched("researcher"));
    expect(streamed).toBe(`echo: ${enrichedQuestion("researcher")}`);
    // Only the messages changed: this hook presents every tool.
    expect(toolNames(got[0])).toEqual(TOOL_NAMES);
    expect(toolNames(got[1])).toEqual(TOOL_NAMES);
  });

  it("with the gate off, the call fails closed with 422 request_hook_failed and nothing reaches the provider", async () => {
    await putConfig(hook);
    const got = await receivedDuring(async () => {
      const res = await fetch(`${base()}/llm/${demo.workspace}/openai/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${demo.key}`, "content-type": "application/json" },
        body: JSON.stringify(openaiBody),
      });
      expect(res.status).toBe(422);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(await res.json()).toMatchObject({
        code: "request_hook_failed",
        hookCode: "request_hook_error",
        detail: expect.stringMatching(/rayrun\.lambda is disabled: .*code_execution\.sys_lambda gate is off/),
      });
      const failed = await openai()
        .chat.completions.create(openaiBody)
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(UnprocessableEntityError);
      // The SDK reads the turn error's own code and type from the provider-shaped `error`.
      expect(failed).toMatchObject({ code: "request_hook_error", type: "turn_error" });
      await expect(anthropic().messages.create(anthropicBody)).rejects.toMatchObject({ status: 422 });
    });
    expect(got).toEqual([]);
  });

  it("an inner loop whose policy allows no lambda is refused the call main makes, and fails closed", async () => {
    await putConfig({
      ...hook,
      code_execution: { sys_lambda: true },
      loops: { researcher: { lambda: { allow: [] } } },
    });
    const got = await receivedDuring(async () => {
      const completion = await openai().chat.completions.create(openaiBody);
      expect(completion.choices[0]?.message.content).toBe(`echo: ${enrichedQuestion("main")}`);
      const refused = await openai({ "x-rayrun-loop": "researcher" })
        .chat.completions.create(openaiBody)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UnprocessableEntityError);
      expect(refused).toMatchObject({
        type: "turn_error",
        code: "request_hook_error",
        message: expect.stringContaining(
          'lib/fast-rag.ts:enrichMessages is not allowed in loop "researcher"',
        ),
      });
    });
    expect(got.map((r) => r.body.messages)).toEqual([enriched("main")]);
  });
});
