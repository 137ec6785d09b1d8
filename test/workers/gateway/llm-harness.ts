// The LLM proxy's test fixtures: a workspace with the request-policy file
// deployed and both providers on a fresh fake provider, the official SDK
// clients pointed at the gateway, and raw requests for what the SDKs hide.
import Anthropic from "@anthropic-ai/sdk";
import { createExecutionContext } from "cloudflare:test";
import OpenAI from "openai";
import { expect } from "vitest";
import type { ReceivedRequest } from "../../../dev/provider/server";
import { call, createKey, createWorkspace, json } from "../../helpers/api";
import { POLICY, POLICY_PATH } from "../../helpers/request-policy";
import { deployFile, fileFixture, saveFile, testFile } from "../api/routes/files-harness";
import { gatewayFetch, putSecret } from "./harness";

export const PROVIDER_KEY = "sk-provider-secret";

export const hook = (fn = "transform", extra: Record<string, unknown> = {}) => ({
  source: `${POLICY_PATH}:${fn}`,
  scope: "all",
  ...extra,
});

export interface Llm {
  ws: string;
  /** tools:call only: what an agent puts in its SDK as apiKey. */
  callKey: string;
  /** The fake provider's id: `http://provider.test/<id>`. */
  provider: string;
  revisionId: string;
  ctx: ExecutionContext;
}

/** Both providers on the fake provider `id`, with the key in the `provider-key` secret and `extra` settings. */
export const fakeProviders = (id: string, extra: Record<string, unknown> = {}) => ({
  openai: { baseUrl: `http://provider.test/${id}/v1`, apiKeySecret: "provider-key", ...extra },
  anthropic: { baseUrl: `http://provider.test/${id}`, apiKeySecret: "provider-key", ...extra },
});

export async function putConfig(ws: string, document: Record<string, unknown>) {
  const etag = (await call("GET", `/v1/workspaces/${ws}/config`)).headers.get("etag") ?? "";
  await json(
    await call("PUT", `/v1/workspaces/${ws}/config`, { body: document, headers: { "if-match": etag } }),
    200,
  );
}

/**
 * A workspace with the policy file deployed, both providers on a fresh fake
 * provider with the key in a workspace secret, and `pre_llm_hook` as given.
 */
export async function setup(
  preLlmHook: Record<string, unknown> | null = hook(),
  providers?: Record<string, unknown>,
): Promise<Llm> {
  const ws = (await createWorkspace("llm")).uid;
  const f = await fileFixture(ws);
  const { version } = await saveFile(f, POLICY_PATH, POLICY);
  const run = await testFile(f, POLICY_PATH, {
    export: "transform",
    input: { request: { messages: [], tools: [], options: {} }, loop: { name: "main" } },
    version,
  });
  expect(run.ok, JSON.stringify(run)).toBe(true);
  const { revision } = await deployFile(f, POLICY_PATH, version, "active");
  await putSecret(ws, "provider-key", PROVIDER_KEY);
  const provider = crypto.randomUUID();
  await putConfig(ws, {
    providers: providers ?? fakeProviders(provider),
    ...(preLlmHook ? { pre_llm_hook: preLlmHook } : {}),
  });
  const { key: callKey } = await createKey(ws, ["tools:call"], "agent");
  return { ws, callKey, provider, revisionId: revision.id, ctx: createExecutionContext() };
}

export const received = async (g: Llm) =>
  (await fetch(`http://provider.test/${g.provider}/_received`)).json<ReceivedRequest[]>();

export const failNext = (g: Llm, failure: { status: number; body?: unknown }) =>
  fetch(`http://provider.test/${g.provider}/_fail`, { method: "POST", body: JSON.stringify(failure) });

export const openai = (g: Llm, headers: Record<string, string> = {}) =>
  new OpenAI({
    apiKey: g.callKey,
    baseURL: `http://gateway.test/llm/${g.ws}/openai/v1`,
    fetch: gatewayFetch(g),
    maxRetries: 0,
    defaultHeaders: headers,
  });

export const anthropic = (g: Llm, headers: Record<string, string> = {}) =>
  new Anthropic({
    apiKey: g.callKey,
    baseURL: `http://gateway.test/llm/${g.ws}/anthropic`,
    fetch: gatewayFetch(g),
    maxRetries: 0,
    defaultHeaders: headers,
  });

/** A raw POST to the proxy, for what the SDKs hide (problem bodies, headers). */
export function post(
  g: Llm,
  provider: "openai" | "anthropic",
  body: unknown,
  headers: Record<string, string> = {},
) {
  const path = provider === "openai" ? "openai/v1/chat/completions" : "anthropic/v1/messages";
  return gatewayFetch(g)(`http://gateway.test/llm/${g.ws}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.callKey}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const schema = { type: "object", properties: { path: { type: "string" } } };
export const TOOL_NAMES = ["fs_read", "fs_write", "shell_exec"];
export const openaiTools = TOOL_NAMES.map((name) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: schema },
}));
export const anthropicTools = TOOL_NAMES.map((name) => ({
  name,
  description: `${name} tool`,
  input_schema: { ...schema, type: "object" as const },
}));
export const openaiBody = {
  model: "gpt-test",
  messages: [
    { role: "system" as const, content: "be brief" },
    { role: "user" as const, content: "hello there" },
  ],
  tools: openaiTools,
};
export const anthropicBody = {
  model: "claude-test",
  max_tokens: 100,
  system: "be brief",
  messages: [{ role: "user" as const, content: "hello there" }],
  tools: anthropicTools,
};
