// The LLM proxy (`/llm/{ws}/openai/v1/chat/completions`, `/llm/{ws}/anthropic/v1/messages`)
// with the official SDKs: the request hook rewrites what the fake provider
// receives, the workspace's provider key replaces the Rayrun key, and the
// provider's answer (JSON or SSE, success or error) reaches the SDK unchanged.
import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import OpenAI, { RateLimitError, UnprocessableEntityError } from "openai";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import type { ReceivedRequest } from "../../../../dev/provider/server";
import { env } from "cloudflare:workers";
import { nestedObject } from "../../../helpers/nested";
import { BOOTSTRAP_KEY, call, createKey, expectProblem, json } from "../../../helpers/api";
import { deployFile, fileFixture, saveFile, testFile } from "../../api/routes/files-harness";
import { gatewayFetch } from "../harness";
import {
  anthropic,
  anthropicBody,
  anthropicTools,
  failNext,
  hook,
  type Llm,
  openai,
  openaiBody,
  openaiTools,
  post,
  PROVIDER_KEY,
  received,
  setup,
  TOOL_NAMES,
} from "../llm-harness";
import { POLICY_PATH, REMINDER } from "../../../helpers/request-policy";

/** A tool whose input schema nests: body, tools, the tool, its schema, then `{ a: { a: … } }`. */
const deepTool = (depth: number) => ({
  name: "deep",
  description: "nests",
  input_schema: { type: "object", properties: nestedObject(depth - 4) },
});

/** Tool names of a body the provider received (either dialect). */
function toolNames(request: ReceivedRequest | undefined): string[] {
  const { tools } = (request?.body ?? {}) as { tools?: { name?: string; function?: { name: string } }[] };
  return (tools ?? []).map((tool) => tool.function?.name ?? tool.name ?? "");
}

interface LogItem {
  kind: string;
  loop: string | null;
  target: string;
  stage: string;
  outcome: string;
  code: string | null;
  revisionId: string | null;
  requestId: string;
  details?: { logs: unknown[]; error?: string } | null;
}

/** Flushes the proxy's deferred log writes, then reads the request-hook records. */
async function hookLogs(g: Llm): Promise<LogItem[]> {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const page = await json<{ items: LogItem[] }>(
    await call("GET", `/v1/workspaces/${g.ws}/hooks/logs?kind=request_hook`),
    200,
  );
  return page.items;
}

describe("the OpenAI-compatible endpoint", () => {
  it("the official client gets the provider's completion; the provider got the transformed request with the workspace key", async () => {
    const g = await setup();
    const { data, response } = await openai(g).chat.completions.create(openaiBody).withResponse();
    expect(data).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: "chat.completion",
      created: expect.any(Number),
      model: "gpt-test",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "echo: hello there", refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      // The fake counts words of what it received: the reminder is in the prompt.
      usage: { prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 },
      system_fingerprint: null,
    });
    // The provider's own headers come through, plus the call's Rayrun request id.
    expect(response.headers.get("x-request-id")).toBe(`req_${data.id}`);
    expect(response.headers.get("x-rayrun-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    const [request, ...rest] = await received(g);
    expect(rest).toEqual([]);
    expect(request).toMatchObject({
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${PROVIDER_KEY}`, "x-api-key": null },
    });
    expect(request?.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: `be brief\n\n${REMINDER}` },
        { role: "user", content: "hello there" },
      ],
      tools: openaiTools.slice(0, 2),
    });
  });

  it("streams: the client joins the provider's chunks; stream options travel on", async () => {
    const g = await setup();
    const stream = await openai(g).chat.completions.create({
      ...openaiBody,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("echo: hello there");
    expect(usage).toEqual({ prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 });
    const [request] = await received(g);
    expect(request?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(toolNames(request)).toEqual(["fs_read", "fs_write"]);
  });

  it("a throwing hook is 422 request_hook_failed and the provider receives nothing", async () => {
    const g = await setup(hook("explode"));
    const error = await openai(g)
      .chat.completions.create(openaiBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error).toMatchObject({
      status: 422,
      code: "request_hook_error",
      type: "turn_error",
      message: expect.stringContaining("the policy store is down"),
    });

    const res = await post(g, "openai", openaiBody);
    const problem = await expectProblem(res, 422, "request_hook_failed");
    expect(problem).toMatchObject({
      hookCode: "request_hook_error",
      requestId: res.headers.get("x-rayrun-request-id"),
      detail: expect.stringContaining("the policy store is down"),
    });
    expect(await received(g)).toEqual([]);

    const logs = await hookLogs(g);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({
      kind: "request_hook",
      loop: "main",
      outcome: "error",
      code: "request_hook_error",
      revisionId: g.revisionId,
      details: { error: expect.stringContaining("[Turn error]") },
    });
  });

  it("a hook that returns { request, loop } fails closed with request_hook_invalid_return", async () => {
    const g = await setup(hook("wrapped"));
    const problem = await expectProblem(await post(g, "openai", openaiBody), 422, "request_hook_failed");
    expect(problem).toMatchObject({
      hookCode: "request_hook_invalid_return",
      detail: expect.stringContaining("not { request, loop }"),
    });
    expect(await received(g)).toEqual([]);
  });

  it("a hook whose file is not deployed fails each call closed", async () => {
    const g = await setup({ source: "lib/missing.ts:transform", scope: "all" });
    const problem = await expectProblem(await post(g, "openai", openaiBody), 422, "request_hook_failed");
    expect(problem).toMatchObject({ hookCode: "request_hook_source_missing" });
    expect(await received(g)).toEqual([]);
  });

  it("each call runs the revision the hook's file points at then: a new deployment applies from the next call", async () => {
    const g = await setup();
    await openai(g).chat.completions.create(openaiBody);
    const f = await fileFixture(g.ws);
    const { version } = await saveFile(
      f,
      POLICY_PATH,
      `export function transform({ request }) { return { ...request, tools: [] }; }`,
    );
    const input = { request: { messages: [], tools: [], options: {} }, loop: { name: "main" } };
    expect((await testFile(f, POLICY_PATH, { export: "transform", input, version })).ok).toBe(true);
    const { revision } = await deployFile(f, POLICY_PATH, version, "active");
    await openai(g).chat.completions.create(openaiBody);
    const [first, second] = await received(g);
    expect(toolNames(first)).toEqual(["fs_read", "fs_write"]);
    expect(toolNames(second)).toEqual([]);
    const ran = new Set((await hookLogs(g)).map((log) => log.revisionId));
    expect(ran).toEqual(new Set([g.revisionId, revision.id]));
  });

  it("the loop header targets the hook: scope main leaves the researcher loop's request alone", async () => {
    const g = await setup(hook("transform", { scope: "main" }));
    await openai(g).chat.completions.create(openaiBody);
    await openai(g, { "x-rayrun-loop": "researcher" }).chat.completions.create(openaiBody);
    const [main, researcher] = await received(g);
    expect(toolNames(main)).toEqual(["fs_read", "fs_write"]);
    expect(toolNames(researcher)).toEqual(TOOL_NAMES);
    expect(researcher?.body).toMatchObject({ messages: [{ role: "system", content: "be brief" }, {}] });
    expect((await hookLogs(g)).map((log) => log.loop)).toEqual(["main"]);
  });

  it("history compaction skips the hook and logs nothing", async () => {
    const g = await setup();
    await openai(g, { "x-rayrun-compaction": "true" }).chat.completions.create(openaiBody);
    expect(toolNames((await received(g))[0])).toEqual(TOOL_NAMES);
    expect(await hookLogs(g)).toEqual([]);
  });

  it("a byte order mark before the JSON body is ignored, as on the API", async () => {
    const g = await setup(null);
    const res = await post(g, "openai", `\uFEFF${JSON.stringify(openaiBody)}`);
    expect(res.status).toBe(200);
    expect((await received(g))[0]?.body).toEqual(openaiBody);
  });

  it("no pre_llm_hook: the request goes as the client sent it", async () => {
    const g = await setup(null);
    await openai(g).chat.completions.create(openaiBody);
    expect((await received(g))[0]?.body).toEqual(openaiBody);
  });

  it("a provider error status reaches the client as the provider sent it", async () => {
    const g = await setup();
    await failNext(g, { status: 429, body: { error: { message: "slow down", type: "rate_limit_error" } } });
    const error = await openai(g)
      .chat.completions.create(openaiBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, type: "rate_limit_error", message: "429 slow down" });
    // The hook ran (and is logged) before the provider refused.
    expect(await hookLogs(g)).toMatchObject([{ outcome: "continue" }]);
  });

  it("logs name the loop, the file, the revision and the request id the client got", async () => {
    const g = await setup();
    const res = await post(g, "openai", openaiBody, { "x-rayrun-loop": "researcher" });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(await hookLogs(g)).toEqual([
      expect.objectContaining({
        kind: "request_hook",
        loop: "researcher",
        target: `file:${POLICY_PATH}`,
        stage: "transform",
        outcome: "continue",
        code: null,
        revisionId: g.revisionId,
        requestId: res.headers.get("x-rayrun-request-id"),
      }),
    ]);
  });
});

describe("the Anthropic-compatible endpoint", () => {
  it("the official client gets the provider's message; the provider got the transformed request with the workspace key", async () => {
    const g = await setup();
    const { data, response } = await anthropic(g).messages.create(anthropicBody).withResponse();
    expect(data).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "echo: hello there" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 2,
        output_tokens: 3,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(response.headers.get("request-id")).toBe(`req_${data.id}`);
    expect(response.headers.get("x-rayrun-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const [request, ...rest] = await received(g);
    expect(rest).toEqual([]);
    expect(request).toMatchObject({
      path: "/v1/messages",
      // The SDK's own API version is passed on; the Rayrun key is not.
      headers: { authorization: null, "x-api-key": PROVIDER_KEY, "anthropic-version": "2026-10-21" },
    });
    expect(request?.body).toEqual({
      model: "claude-test",
      system: `be brief\n\n${REMINDER}`,
      messages: [{ role: "user", content: "hello there" }],
      max_tokens: 100,
      tools: anthropicTools.slice(0, 2),
    });
  });

  it("streams the provider's events, which the client accumulates", async () => {
    const g = await setup();
    const stream = anthropic(g).messages.stream(anthropicBody);
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe("echo: hello there");
    expect(final).toMatchObject({
      content: [{ type: "text", text: "echo: hello there" }],
      stop_reason: "end_turn",
    });
    const [request] = await received(g);
    expect(request?.body).toMatchObject({ stream: true, system: `be brief\n\n${REMINDER}` });
    expect(toolNames(request)).toEqual(["fs_read", "fs_write"]);
  });

  it("accepts the Rayrun key in x-api-key, as classic Anthropic clients send it", async () => {
    const g = await setup();
    const res = await gatewayFetch(g)(`http://gateway.test/llm/${g.ws}/anthropic/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": g.callKey,
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify(anthropicBody),
    });
    expect(await json(res, 200)).toMatchObject({ content: [{ type: "text", text: "echo: hello there" }] });
    expect((await received(g))[0]?.headers).toEqual({
      authorization: null,
      "x-api-key": PROVIDER_KEY,
      "anthropic-version": "2023-06-01",
    });
  });

  it("a throwing hook is 422 request_hook_failed for the client too, and nothing is sent", async () => {
    const g = await setup(hook("explode"));
    const error = await anthropic(g)
      .messages.create(anthropicBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnthropicAPIError);
    expect(error).toMatchObject({
      status: 422,
      type: "turn_error",
      apiMessage: expect.stringContaining("the policy store is down"),
    });
    expect(await received(g)).toEqual([]);
  });

  it("a provider error status reaches the client as the provider sent it", async () => {
    const g = await setup();
    await failNext(g, { status: 529 });
    const error = await anthropic(g)
      .messages.create(anthropicBody)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnthropicAPIError);
    expect(error).toMatchObject({ status: 529, error: { type: "error", error: { type: "api_error" } } });
  });
});

describe("refusals before the provider", () => {
  it("needs a tools:call key of the workspace: 401 without one, 403 with hooks:read", async () => {
    const g = await setup();
    await expectProblem(await post(g, "openai", openaiBody, { authorization: "" }), 401, "unauthorized");
    // x-api-key counts only on the Anthropic endpoint.
    await expectProblem(
      await post(g, "openai", openaiBody, { authorization: "", "x-api-key": g.callKey }),
      401,
      "unauthorized",
    );
    const { key: reader } = await createKey(g.ws, ["hooks:read"], "reader");
    await expectProblem(
      await post(g, "anthropic", anthropicBody, { authorization: `Bearer ${reader}` }),
      403,
      "forbidden",
    );
    const other = await setup();
    await expectProblem(
      await post(g, "openai", openaiBody, { authorization: `Bearer ${other.callKey}` }),
      403,
      "forbidden",
    );
    expect(await received(g)).toEqual([]);
  });

  it("401 and 403 carry the provider-style error object the SDKs read", async () => {
    const g = await setup();
    for (const [key, status, code] of [
      ["rr_nope", 401, "unauthorized"],
      [(await createKey(g.ws, ["hooks:read"], "reader")).key, 403, "forbidden"],
    ] as const) {
      const problem = await expectProblem(
        await post(g, "openai", openaiBody, { authorization: `Bearer ${key}` }),
        status,
        code,
      );
      expect(problem.error).toEqual({ type: code, code, message: problem.detail });
      const error = await openai({ ...g, callKey: key })
        .chat.completions.create(openaiBody)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status, message: expect.stringContaining(String(problem.detail)) });
    }
    expect(await received(g)).toEqual([]);
  });

  it("a revoked key is refused from the next request on both endpoints, before the hook runs", async () => {
    const g = await setup();
    const { key, id } = await createKey(g.ws, ["tools:call"], "agent-2");
    const keyed = { ...g, callKey: key };
    await openai(keyed).chat.completions.create(openaiBody);
    await anthropic(keyed).messages.create(anthropicBody);
    expect(await received(g)).toHaveLength(2);
    await json(await call("DELETE", `/v1/workspaces/${g.ws}/keys/${id}`), 200);
    for (const provider of ["openai", "anthropic"] as const) {
      const problem = await expectProblem(
        await post(g, provider, provider === "openai" ? openaiBody : anthropicBody, {
          authorization: `Bearer ${key}`,
        }),
        401,
        "unauthorized",
      );
      expect(problem.error).toMatchObject({
        code: "unauthorized",
        message: expect.stringContaining("revoked"),
      });
    }
    await waitOnExecutionContext(g.ctx);
    expect(await received(g)).toHaveLength(2);
    const { results } = await env.DB.prepare(
      "select count(*) as n from hook_runs where workspace_uid = ? and kind = 'request_hook'",
    )
      .bind(g.ws)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(2);
  });

  it("an unknown workspace is 404 workspace_not_found in the provider shape, even for the bootstrap key", async () => {
    const g = await setup();
    const res = await gatewayFetch(g)(`http://gateway.test/llm/ws_nope/openai/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BOOTSTRAP_KEY}` },
      body: JSON.stringify(openaiBody),
    });
    const problem = await expectProblem(res, 404, "workspace_not_found");
    expect(problem.error).toMatchObject({ code: "workspace_not_found" });
  });

  it("limit: jsonDepth — a body nested to the limit is proxied, one level deeper is 400 json_too_deep in the provider shape", async () => {
    const g = await setup();
    const atLimit = await post(g, "anthropic", { ...anthropicBody, tools: [deepTool(LIMITS.jsonDepth)] });
    expect(atLimit.status).toBe(200);
    await atLimit.arrayBuffer();
    const receivedBefore = (await received(g)).length;
    for (const provider of ["openai", "anthropic"] as const) {
      for (const depth of [LIMITS.jsonDepth + 1, 5000]) {
        const deep =
          provider === "anthropic"
            ? { ...anthropicBody, tools: [deepTool(depth)] }
            : {
                ...openaiBody,
                tools: [
                  { type: "function", function: { name: "deep", parameters: nestedObject(depth - 4) } },
                ],
              };
        const problem = await expectProblem(await post(g, provider, deep), 400, "json_too_deep");
        expect(problem.error).toMatchObject({ code: "json_too_deep" });
      }
    }
    expect(await received(g)).toHaveLength(receivedBefore);
  });

  it("a body that is not JSON by its content type is 415, one without a model 400, and neither reaches the provider", async () => {
    const g = await setup();
    for (const provider of ["openai", "anthropic"] as const) {
      const base = provider === "openai" ? openaiBody : anthropicBody;
      for (const type of ["text/plain", "application/x-www-form-urlencoded", ""]) {
        const res = await post(g, provider, base, { "content-type": type });
        const problem = await expectProblem(res, 415, "unsupported_media_type");
        expect(problem.error).toMatchObject({ code: "unsupported_media_type" });
      }
      for (const model of [undefined, "", 7]) {
        const problem = await expectProblem(
          await post(g, provider, { ...base, model }),
          400,
          "invalid_request",
        );
        expect(problem.errors).toEqual([{ path: "/model", message: expect.any(String) }]);
        expect(problem.error).toMatchObject({ code: "invalid_request" });
      }
    }
    expect(await received(g)).toEqual([]);
    const ok = await post(g, "openai", openaiBody, { "content-type": "application/json; charset=utf-8" });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it("GET on a proxy route is 405 with Allow: POST", async () => {
    const g = await setup();
    for (const path of ["openai/v1/chat/completions", "anthropic/v1/messages"]) {
      const res = await gatewayFetch(g)(`http://gateway.test/llm/${g.ws}/${path}`, {
        headers: { authorization: `Bearer ${g.callKey}` },
      });
      await expectProblem(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toBe("POST");
    }
    expect(await received(g)).toEqual([]);
  });

  it("a body the neutral request cannot hold is 400 invalid_request naming the fields", async () => {
    const g = await setup();
    const body = {
      model: "gpt-test",
      messages: [
        { role: "user", content: [{ type: "image_url", image_url: { url: "http://x.test/a.png" } }] },
      ],
    };
    const problem = await expectProblem(await post(g, "openai", body), 400, "invalid_request");
    expect(problem.errors).toEqual([{ path: "/messages/0/content/0/type", message: expect.any(String) }]);
    await expectProblem(await post(g, "anthropic", "{not json"), 400, "invalid_json");
    await expectProblem(await post(g, "anthropic", [anthropicBody]), 400, "invalid_request");
    const big = { ...anthropicBody, system: "x".repeat(600 * 1024) };
    const tooLarge = await expectProblem(await post(g, "anthropic", big), 413, "payload_too_large");
    expect(tooLarge.error).toMatchObject({ code: "payload_too_large" });
    expect(await received(g)).toEqual([]);
  });

  it("the loop and compaction headers are checked", async () => {
    const g = await setup();
    await expectProblem(
      await post(g, "openai", openaiBody, { "x-rayrun-loop": "no spaces" }),
      400,
      "invalid_request",
    );
    await expectProblem(
      await post(g, "openai", openaiBody, { "x-rayrun-compaction": "yes" }),
      400,
      "invalid_request",
    );
    expect(await received(g)).toEqual([]);
  });

  it("a provider the config does not name, or whose key secret is unset, is 424 provider_not_configured", async () => {
    const provider = crypto.randomUUID();
    const g = await setup(hook(), {
      openai: { baseUrl: `http://provider.test/${provider}/v1`, apiKeySecret: "unset-secret" },
    });
    const missing = await expectProblem(
      await post(g, "anthropic", anthropicBody),
      424,
      "provider_not_configured",
    );
    expect(missing.detail).toContain("anthropic");
    const unset = await expectProblem(await post(g, "openai", openaiBody), 424, "provider_not_configured");
    expect(unset.detail).toContain("unset-secret");
    expect(await (await fetch(`http://provider.test/${provider}/_received`)).json()).toEqual([]);
  });
});

/** A plugin whose chat.params sets the temperature to `t`. */
const setsTemperature = (t: number) =>
  `export default { "chat.params": (p: any) => ({ ...p, temperature: ${t} }) };`;

/** Deploys `plugins/<name>.ts` through the files API (its chat.params tested with `{}`). */
async function deployPlugin(g: Llm, name: string, source: string) {
  const f = await fileFixture(g.ws);
  const path = `plugins/${name}.ts`;
  const { version } = await saveFile(f, path, source);
  const run = await testFile(f, path, { hook: "chat.params", input: {}, version });
  expect(run.ok, JSON.stringify(run)).toBe(true);
  await deployFile(f, path, version, "active");
}

async function pluginLogs(g: Llm): Promise<(LogItem & { plugin: string | null })[]> {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const page = await json<{ items: (LogItem & { plugin: string | null })[] }>(
    await call("GET", `/v1/workspaces/${g.ws}/hooks/logs?kind=plugin`),
    200,
  );
  return page.items;
}

describe("plugins' chat.params on the proxy (after the request hook, before the provider)", () => {
  it("the official OpenAI client's call reaches the provider with the params chat.params returned", async () => {
    const g = await setup();
    await deployPlugin(
      g,
      "tune",
      `export default {
        "chat.params": (p: any) => ({
          ...p,
          temperature: p.temperature === undefined ? 0.1 : p.temperature,
          maxOutputTokens: 1000000,
          options: { ...p.options, user: "plugin-user" },
        }),
      };`,
    );
    // Lowering works after a raise: the second plugin runs on the first one's output.
    await deployPlugin(
      g,
      "u-lower",
      `export default { "chat.params": (p: any) => ({ ...p, maxOutputTokens: Math.min(p.maxOutputTokens ?? 500, 500), topP: 0.9 }) };`,
    );
    const completion = await openai(g).chat.completions.create({
      ...openaiBody,
      user: "caller",
      seed: 3,
    });
    expect(completion.choices[0]?.message.content).toBe("echo: hello there");
    const [request] = await received(g);
    expect(request?.body).toMatchObject({
      model: "gpt-test",
      // The request hook ran first (its reminder and tool filter), then the plugins.
      messages: [
        { role: "system", content: `be brief\n\n${REMINDER}` },
        { role: "user", content: "hello there" },
      ],
      tools: openaiTools.slice(0, 2),
      temperature: 0.1,
      top_p: 0.9,
      max_completion_tokens: 500,
      user: "plugin-user",
      seed: 3,
    });
    const logs = await pluginLogs(g);
    expect(
      logs
        .map((log) => [log.plugin, log.stage, log.outcome, log.target])
        .toSorted((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ["tune", "chat.params", "continue", "file:plugins/tune.ts"],
      ["u-lower", "chat.params", "continue", "file:plugins/u-lower.ts"],
    ]);
  });

  it("the isolate's plugin list follows deployments: a plugin deployed after a call runs on the next, and so does its new version", async () => {
    const g = await setup(null);
    await openai(g).chat.completions.create(openaiBody);
    await deployPlugin(g, "tune", setsTemperature(0.25));
    await openai(g).chat.completions.create(openaiBody);
    await deployPlugin(g, "tune", setsTemperature(0.5));
    await openai(g).chat.completions.create(openaiBody);
    const temperatures = (await received(g)).map(
      (request) => (request.body as { temperature?: number }).temperature,
    );
    expect(temperatures).toEqual([undefined, 0.25, 0.5]);
  });

  it("a throwing chat.params plugin is dropped and logged; the call still goes out", async () => {
    const g = await setup(null);
    await deployPlugin(
      g,
      "broken",
      `export default {
        "chat.params": (p: any) => {
          if (p.model) throw new Error("params store down");
          return undefined;
        },
      };`,
    );
    const completion = await openai(g).chat.completions.create({ ...openaiBody, temperature: 0.4 });
    expect(completion.choices[0]?.message.content).toBe("echo: hello there");
    const [request] = await received(g);
    expect(request?.body).toMatchObject({ temperature: 0.4 });
    expect(request?.body).not.toHaveProperty("max_completion_tokens");
    const [log] = await pluginLogs(g);
    expect(log).toMatchObject({ plugin: "broken", outcome: "threw", code: "hook_threw" });
    expect(log?.details?.error).toContain("plugin: hook threw");
  });

  it("chat.params maps topK to Anthropic's top_k", async () => {
    const g = await setup(null);
    await deployPlugin(g, "topk", `export default { "chat.params": (p: any) => ({ ...p, topK: 20 }) };`);
    await anthropic(g).messages.create({ ...anthropicBody, tools: [] });
    const [request] = await received(g);
    expect(request?.body).toMatchObject({ model: "claude-test", max_tokens: 100, top_k: 20 });
  });
});
