// POST /v1/workspaces/{ws}/llm/prepare: the request hook on a neutral request,
// for agents that call their provider themselves. Same hook, same fail-closed
// rule and same logs as the proxy, without the provider.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { NeutralRequest } from "../../../../shared/llm/request";
import { app } from "../../../../workers/api/app";
import { BOOTSTRAP_KEY, call, createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";
import { deployFile, fileFixture, saveFile, testFile } from "./files-harness";
import { POLICY, POLICY_PATH, REMINDER } from "../../../helpers/request-policy";
import { DEFAULT_MODEL_OUTPUT_LIMIT } from "../../../../shared/plugins/models";

const tool = (name: string) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
});

const REQUEST: NeutralRequest = {
  model: "gpt-test",
  system: "be brief",
  messages: [
    { role: "user", content: "read a.txt" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "t1", name: "fs_read", input: { path: "a.txt" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", toolUseId: "t1", content: "hello" }] },
    { role: "assistant", content: "It says hello." },
    { role: "user", content: "thanks" },
  ],
  tools: [tool("fs_read"), tool("fs_write"), tool("shell_exec")],
  options: { maxTokens: 256, temperature: 0.2 },
};

interface Prepared {
  requestId: string;
  request: NeutralRequest;
  hook: {
    ran: boolean;
    revisionId: string | null;
    path: string | null;
    function: string | null;
    durationMs: number;
  };
}

interface Fixture {
  ws: string;
  callKey: string;
  revisionId: string;
  ctx: ExecutionContext;
}

async function setup(preLlmHook: Record<string, unknown> | null): Promise<Fixture> {
  const ws = (await createWorkspace("prepare")).uid;
  const f = await fileFixture(ws);
  const { version } = await saveFile(f, POLICY_PATH, POLICY);
  const run = await testFile(f, POLICY_PATH, {
    export: "transform",
    input: { request: REQUEST, loop: { name: "main" } },
    version,
  });
  expect(run.ok, JSON.stringify(run)).toBe(true);
  const { revision } = await deployFile(f, POLICY_PATH, version, "active");
  if (preLlmHook !== null) {
    const path = `/v1/workspaces/${ws}/config`;
    const etag = (await call("GET", path)).headers.get("etag") ?? "";
    const body = { pre_llm_hook: preLlmHook };
    await json(await call("PUT", path, { body, headers: { "if-match": etag } }), 200);
  }
  const { key: callKey } = await createKey(ws, ["tools:call"], "agent");
  return { ws, callKey, revisionId: revision.id, ctx: createExecutionContext() };
}

const hook = (fn: string, extra: Record<string, unknown> = {}) => ({
  source: `${POLICY_PATH}:${fn}`,
  scope: "all",
  ...extra,
});

/** Calls the api app in-process with the fixture's execution context, so deferred log writes can be awaited. */
function prepare(f: Fixture, body: unknown, key: string = f.callKey, ws: string = f.ws) {
  return app.fetch(
    new Request(`http://rayrun.test/v1/workspaces/${ws}/llm/prepare`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    env,
    f.ctx,
  );
}

interface LogItem {
  kind: string;
  loop: string | null;
  target: string;
  outcome: string;
  code: string | null;
  revisionId: string | null;
  requestId: string;
  durationMs: number;
}

async function hookLogs(f: Fixture): Promise<LogItem[]> {
  await waitOnExecutionContext(f.ctx);
  f.ctx = createExecutionContext();
  const page = await json<{ items: LogItem[] }>(
    await call("GET", `/v1/workspaces/${f.ws}/hooks/logs?kind=request_hook`),
    200,
  );
  return page.items;
}

describe("POST /v1/workspaces/{ws}/llm/prepare", () => {
  it("returns the transformed request with the hook's revision, function and duration, and logs the run", async () => {
    const f = await setup(hook("transform"));
    const res = await prepare(f, { request: REQUEST });
    const body = await json<Prepared>(res, 200);
    expect(body).toEqual({
      requestId: res.headers.get("x-rayrun-request-id"),
      request: {
        ...REQUEST,
        system: `be brief\n\n${REMINDER}`,
        tools: [tool("fs_read"), tool("fs_write")],
      },
      hook: {
        ran: true,
        revisionId: f.revisionId,
        path: POLICY_PATH,
        function: "transform",
        durationMs: expect.any(Number),
      },
    });
    expect(body.hook.durationMs).toBeGreaterThanOrEqual(0);
    expect(await hookLogs(f)).toEqual([
      expect.objectContaining({
        kind: "request_hook",
        loop: "main",
        target: `file:${POLICY_PATH}`,
        outcome: "continue",
        code: null,
        revisionId: f.revisionId,
        requestId: body.requestId,
      }),
    ]);
  });

  it("targets loops: a hook for researcher leaves main alone and runs for researcher", async () => {
    const f = await setup(hook("transform", { scope: "loops", loops: ["researcher"] }));
    const main = await json<Prepared>(await prepare(f, { request: REQUEST }), 200);
    expect(main).toMatchObject({
      request: REQUEST,
      hook: { ran: false, revisionId: null, path: null, function: null, durationMs: 0 },
    });
    const researcher = await json<Prepared>(await prepare(f, { loop: "researcher", request: REQUEST }), 200);
    expect(researcher.hook).toMatchObject({ ran: true, function: "transform" });
    expect(researcher.request.tools.map((t) => t.name)).toEqual(["fs_read", "fs_write"]);
    expect((await hookLogs(f)).map((log) => log.loop)).toEqual(["researcher"]);
  });

  it("without pre_llm_hook the request comes back as given", async () => {
    const f = await setup(null);
    const body = await json<Prepared>(await prepare(f, { request: REQUEST }), 200);
    expect(body.request).toEqual(REQUEST);
    expect(body.hook.ran).toBe(false);
  });

  it("a throwing hook is 422 request_hook_failed with the hook's code and the request id; it is logged", async () => {
    const f = await setup(hook("explode"));
    const res = await prepare(f, { request: REQUEST });
    const problem = await expectProblem(res, 422, "request_hook_failed");
    expect(problem).toMatchObject({
      hookCode: "request_hook_error",
      requestId: res.headers.get("x-rayrun-request-id"),
      detail: expect.stringContaining("the policy store is down"),
    });
    expect(await hookLogs(f)).toEqual([
      expect.objectContaining({ outcome: "error", code: "request_hook_error", requestId: problem.requestId }),
    ]);
  });

  it("a hook that breaks tool-use/tool-result pairing fails closed with request_hook_invalid_return", async () => {
    const f = await setup(hook("unpair"));
    const problem = await expectProblem(await prepare(f, { request: REQUEST }), 422, "request_hook_failed");
    expect(problem).toMatchObject({
      hookCode: "request_hook_invalid_return",
      detail: expect.stringContaining('tool_use "t1" is not answered'),
    });
  });

  it("an invalid request or loop is 400 invalid_request naming the paths; the hook does not run", async () => {
    const f = await setup(hook("transform"));
    const unpaired = {
      ...REQUEST,
      messages: [{ role: "user", content: [{ type: "tool_result", toolUseId: "nope", content: "x" }] }],
    };
    const problem = await expectProblem(await prepare(f, { request: unpaired }), 400, "invalid_request");
    expect(problem.errors).toEqual([
      { path: "/request/messages/0/content/0/toolUseId", message: expect.stringContaining('"nope"') },
    ]);
    const shape = await expectProblem(
      await prepare(f, { request: { messages: [{ role: "system", content: "x" }], tools: [] } }),
      400,
      "invalid_request",
    );
    expect(shape.errors).toEqual([
      { path: "/request/messages/0/role", message: 'role must be "user" or "assistant"' },
      { path: "/request/options", message: "is required" },
    ]);
    const missing = await expectProblem(await prepare(f, {}), 400, "invalid_request");
    expect(missing.errors).toEqual([{ path: "/request", message: "is required" }]);
    const loop = await expectProblem(
      await prepare(f, { loop: "no spaces", request: REQUEST }),
      400,
      "invalid_request",
    );
    expect(loop.errors).toEqual([{ path: "/loop", message: expect.any(String) }]);
    expect(await hookLogs(f)).toEqual([]);
  });

  it("needs tools:call (admin and the platform key also pass) on an existing workspace", async () => {
    const f = await setup(hook("transform"));
    const { key: writer } = await createKey(f.ws, ["hooks:read", "hooks:write"], "wes");
    await expectProblem(await prepare(f, { request: REQUEST }, writer), 403, "forbidden");
    const { key: admin } = await createKey(f.ws, ["admin"], "ada");
    expect((await json<Prepared>(await prepare(f, { request: REQUEST }, admin), 200)).hook.ran).toBe(true);
    expect((await prepare(f, { request: REQUEST }, BOOTSTRAP_KEY)).status).toBe(200);
    await expectProblem(await prepare(f, { request: REQUEST }, "nope"), 401, "unauthorized");
    await expectProblem(
      await prepare(f, { request: REQUEST }, BOOTSTRAP_KEY, "ws_missing"),
      404,
      "workspace_not_found",
    );
  });
});

describe("plugins' chat.params in prepare", () => {
  it("runs after the request hook; the returned request carries the params (maxTokens clamped) and runs are logged", async () => {
    const f = await setup(hook("transform"));
    const files = await fileFixture(f.ws);
    const path = "plugins/params.ts";
    const { version } = await saveFile(
      files,
      path,
      `export default {
        "chat.params": (p: any) => ({ ...p, temperature: 0.05, maxOutputTokens: 999999999, topK: 8 }),
      };`,
    );
    const run = await testFile(files, path, { hook: "chat.params", input: {}, version });
    expect(run.ok, JSON.stringify(run)).toBe(true);
    await deployFile(files, path, version, "active");

    const body = await json<Prepared>(await prepare(f, { request: REQUEST }), 200);
    expect(body.hook.ran).toBe(true);
    expect(body.request.system).toBe(`be brief\n\n${REMINDER}`);
    expect(body.request.options).toEqual({
      maxTokens: DEFAULT_MODEL_OUTPUT_LIMIT,
      temperature: 0.05,
      providerParams: { top_k: 8 },
    });
    await waitOnExecutionContext(f.ctx);
    f.ctx = createExecutionContext();
    const page = await json<{ items: { plugin: string | null; outcome: string; requestId: string }[] }>(
      await call("GET", `/v1/workspaces/${f.ws}/hooks/logs?kind=plugin`),
      200,
    );
    expect(page.items).toEqual([
      expect.objectContaining({ plugin: "params", outcome: "continue", requestId: body.requestId }),
    ]);
  });
});

describe("prepare follows deployments between calls", () => {
  it("a plugin deployed after a call runs on the next, as does a new version of the hook's file", async () => {
    const f = await setup(hook("transform"));
    const files = await fileFixture(f.ws);
    const first = await json<Prepared>(await prepare(f, { request: REQUEST }), 200);
    expect(first.request.options.temperature).toBe(0.2);

    const path = "plugins/cool.ts";
    const plugin = await saveFile(
      files,
      path,
      `export default { "chat.params": (p: any) => ({ ...p, temperature: 0 }) };`,
    );
    expect(
      (await testFile(files, path, { hook: "chat.params", input: {}, version: plugin.version })).ok,
    ).toBe(true);
    await deployFile(files, path, plugin.version, "active");
    const policy = await saveFile(
      files,
      POLICY_PATH,
      `export function transform({ request }) { return { ...request, tools: [] }; }`,
    );
    const input = { request: { messages: [], tools: [], options: {} }, loop: { name: "main" } };
    const tested = await testFile(files, POLICY_PATH, {
      export: "transform",
      input,
      version: policy.version,
    });
    expect(tested.ok, JSON.stringify(tested)).toBe(true);
    const { revision } = await deployFile(files, POLICY_PATH, policy.version, "active");

    const second = await json<Prepared>(await prepare(f, { request: REQUEST }), 200);
    expect(second.request.options.temperature).toBe(0);
    expect(second.request.tools).toEqual([]);
    expect(second.hook.revisionId).toBe(revision.id);
    expect(first.hook.revisionId).not.toBe(revision.id);
  });
});

describe("approvals on host calls through prepare", () => {
  it("the repeat's header is documented in the OpenAPI document, and a malformed one is refused before the hook runs", async () => {
    const doc = await json<{
      paths: Record<string, { post?: { parameters?: { name: string; in: string; required: boolean }[] } }>;
    }>(await call("GET", "/v1/openapi.json", { key: null }), 200);
    expect(doc.paths["/v1/workspaces/{ws}/llm/prepare"]?.post?.parameters).toContainEqual(
      expect.objectContaining({ name: "x-rayrun-approval-id", in: "header", required: false }),
    );
    const f = await setup(hook("transform"));
    const res = await app.fetch(
      new Request(`http://rayrun.test/v1/workspaces/${f.ws}/llm/prepare`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${f.callKey}`,
          "content-type": "application/json",
          "x-rayrun-approval-id": "not an id",
        },
        body: JSON.stringify({ request: REQUEST }),
      }),
      env,
      f.ctx,
    );
    expect(await json(res, 400)).toMatchObject({ code: "invalid_request" });
    expect(await hookLogs(f)).toEqual([]);
  });
});
