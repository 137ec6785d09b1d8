// Compile, test console, deployments, rollback, shadow and reset of a tool adapter.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey, createWorkspace, expectProblem, json } from "../../helpers/api";
import { SEED_ADAPTER } from "../../workers/api/compiler/fixtures";
import { call, fixture, getHook, saveOk, type Fixture } from "../../workers/api/lifecycle/harness";

const ECHO_ADAPTER = (suffix: string) => `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a, context }) => ({
    action: "continue",
    arguments: { text: String(a.text) + ${JSON.stringify(suffix)} + context.toolName },
  }),
});
`;

interface Revision {
  id: string;
  version: number;
  codeHash: string;
  compiledBytes: number;
  definitionHash: string;
}

/** The fixture's workspace, aimed at the upstream's `search_release_notes` tool instead of `echo`. */
async function searchHook(): Promise<Fixture> {
  const f = await fixture();
  const hook = f.hooks.search_release_notes;
  if (!hook) throw new Error("the test upstream has no search_release_notes tool");
  return { ...f, hook, toolUid: hook.split("/")[5] ?? "" };
}

/** Valid public arguments for the tool a fixture aims at. */
const argsFor = (f: Fixture) => (f.hook === f.hooks.search_release_notes ? { query: "x" } : { text: "x" });

const post = (f: Fixture, path: string, body?: unknown) =>
  call("POST", `${f.hook}${path}`, { key: f.key, body });

async function saveAndTest(f: Fixture, source: string, config: Record<string, unknown> = {}, etag?: string) {
  const current = etag ?? (await getHook(f)).etag ?? "";
  const saved = await saveOk(f, current, { source, config });
  const test = await json<{ ok: boolean }>(
    await post(f, "/test", { stage: "before", arguments: argsFor(f) }),
    200,
  );
  return { saved, test };
}

async function deploy(f: Fixture, version: number, channel: "active" | "shadow") {
  const res = await post(f, "/deployments", { version, channel });
  expect([200, 201], await res.clone().text()).toContain(res.status);
  return res.json<{ reused: boolean; revision: Revision }>();
}

describe("test console", () => {
  it("runs before against the draft with the tool's real context values and records the run", async () => {
    const f = await searchHook();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER, config: { prefix: "notes: " } });
    const run = await json(await post(f, "/test", { stage: "before", arguments: { query: "v2" } }), 200);
    expect(run).toMatchObject({
      ok: true,
      version: 1,
      outcome: { action: "continue", arguments: { q: "notes: v2" } },
      logs: [{ level: "info", message: "Preparing search", data: { query: "v2" } }],
    });
    const stored = await env.DB.prepare("select * from hook_test_runs where id = ?").bind(run.id).first();
    expect(stored).toMatchObject({ version: 1, stage: "before", ok: 1, counts: 1 });
  });

  it("runs after with a mock result and never contacts the upstream", async () => {
    const f = await searchHook();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER });
    const run = await json(
      await post(f, "/test", { stage: "after", result: { items: [{ title: "a", score: 1 }], extra: true } }),
      200,
    );
    expect(run).toMatchObject({
      ok: true,
      outcome: { action: "return", result: { items: [{ title: "a", score: 1 }] } },
    });
    const tool = await json<{ serviceUid: string }>(await call("GET", f.hook.replace(/\/hook$/, "")), 200);
    const service = await json<{ url: string }>(
      await call("GET", `/v1/workspaces/${f.ws}/services/${tool.serviceUid}`),
      200,
    );
    const calls = await (await fetch(service.url.replace(/\/mcp$/, "/_calls"))).json<unknown[]>();
    expect(calls).toEqual([]);
  });

  it("a result that breaks the tool's output schema fails closed and does not count as a test", async () => {
    const f = await searchHook();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER });
    const run = await json(await post(f, "/test", { stage: "after", result: { items: [1, 2] } }), 200);
    expect(run).toMatchObject({ ok: false, code: "public_output_invalid", ran: true });
    await expectProblem(await post(f, "/deployments", { version: 1, channel: "active" }), 409, "not_tested");
  });

  it("sees the tool's identity in context", async () => {
    const f = await fixture();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: ECHO_ADAPTER(" via ") });
    const run = await json<{ outcome: { arguments: { text: string } } }>(
      await post(f, "/test", { stage: "before", arguments: { text: "hi" } }),
      200,
    );
    expect(run.outcome.arguments.text).toBe("hi via echo");
  });

  it("answers 409 before anything is saved", async () => {
    const f = await fixture();
    await expectProblem(await post(f, "/test", { stage: "before", arguments: {} }), 409, "conflict");
  });
});

describe("deployments", () => {
  it("only compiled and tested versions deploy: an untested version is refused", async () => {
    const f = await searchHook();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER });
    await expectProblem(await post(f, "/deployments", { version: 1, channel: "active" }), 409, "not_tested");
  });

  it("a hook_* failure does not count as a test", async () => {
    const f = await fixture();
    const throwing = `export default defineToolAdapter({ apiVersion: "rayrun.hooks/v1", before() { throw new Error("boom"); } });`;
    const { test } = await saveAndTest(f, throwing);
    expect(test).toMatchObject({ ok: false, code: "hook_threw" });
    await expectProblem(await post(f, "/deployments", { version: 1, channel: "active" }), 409, "not_tested");
  });

  it("a tested version deploys to active: code in R2 (content-addressed), metadata in D1, pointer in the WorkspaceObject", async () => {
    const f = await searchHook();
    await saveAndTest(f, SEED_ADAPTER);
    const { revision, reused } = await deploy(f, 1, "active");
    expect(reused).toBe(false);
    expect(revision).toMatchObject({ version: 1, compiledBytes: expect.any(Number) });
    const row = await env.DB.prepare("select * from hook_revisions where id = ?")
      .bind(revision.id)
      .first<{ code_key: string }>();
    expect(row?.code_key).toBe(
      `ws/${f.ws}/hooks/${encodeURIComponent(`tool:${f.toolUid}`)}/code/${revision.codeHash}.js`,
    );
    const object = await env.CODE.get(row?.code_key ?? "");
    const code = await object?.text();
    expect(code).toContain("Preparing search");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code));
    expect([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")).toBe(
      revision.codeHash,
    );
    const pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect(pointers.active?.revisionId).toBe(revision.id);
    const { body } = await getHook(f);
    expect(JSON.stringify(body.deployments.active)).toContain(revision.id);
  });

  it("deploying an identical compile again reuses its revision", async () => {
    const f = await searchHook();
    await saveAndTest(f, SEED_ADAPTER);
    const first = await deploy(f, 1, "shadow");
    const second = await deploy(f, 1, "active");
    expect(second.reused).toBe(true);
    expect(second.revision.id).toBe(first.revision.id);
  });

  it("shadow deploys beside active and DELETE …/hook/shadow drops it", async () => {
    const f = await fixture();
    const { saved } = await saveAndTest(f, ECHO_ADAPTER("1"));
    const active = await deploy(f, 1, "active");
    await saveAndTest(f, ECHO_ADAPTER("2"), {}, saved.etag);
    const shadow = await deploy(f, 2, "shadow");
    let pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect([pointers.active?.revisionId, pointers.shadow?.revisionId]).toEqual([
      active.revision.id,
      shadow.revision.id,
    ]);
    const dropped = await json<{ dropped: string }>(
      await call("DELETE", `${f.hook}/shadow`, { key: f.key }),
      200,
    );
    expect(dropped.dropped).toBe(shadow.revision.id);
    pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect(pointers).toMatchObject({ active: { revisionId: active.revision.id }, shadow: null });
  });

  it("rollback moves the pointer back to an earlier compatible revision", async () => {
    const f = await fixture();
    const { saved } = await saveAndTest(f, ECHO_ADAPTER("1"));
    const first = await deploy(f, 1, "active");
    await saveAndTest(f, ECHO_ADAPTER("2"), {}, saved.etag);
    await deploy(f, 2, "active");
    const rolled = await json<{ revision: Revision }>(
      await post(f, "/rollback", { revision: first.revision.id }),
      200,
    );
    expect(rolled.revision.id).toBe(first.revision.id);
    const pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect(pointers.active?.revisionId).toBe(first.revision.id);
    const events = await env.DB.prepare(
      "select action, revision_id from hook_pointer_events where workspace_uid = ? order by id",
    )
      .bind(f.ws)
      .all();
    expect(events.results.map((e) => e.action)).toEqual(["deploy", "deploy", "rollback"]);
  });

  it("rollback to a revision compiled against an earlier upstream definition is refused with 409", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    const first = await deploy(f, 1, "active");
    // The upstream changes the echo tool; the change is reviewed and accepted.
    const tool = await json<{ serviceUid: string }>(await call("GET", f.hook.replace(/\/hook$/, "")), 200);
    const service = await json<{ url: string }>(
      await call("GET", `/v1/workspaces/${f.ws}/services/${tool.serviceUid}`),
      200,
    );
    await fetch(service.url.replace(/\/mcp$/, "/_variant"), {
      method: "POST",
      body: JSON.stringify({ variant: "v2" }),
    });
    await json(await call("POST", `/v1/workspaces/${f.ws}/services/${tool.serviceUid}/refresh`), 200);
    await json(await call("POST", `${f.hook.replace(/\/hook$/, "")}/review/accept`), 200);
    const res = await post(f, "/rollback", { revision: first.revision.id });
    const problem = await expectProblem(res, 409, "incompatible_revision");
    expect(problem).toMatchObject({ revision: first.revision.id });
  });

  it("rollback to an unknown revision is 404 and changes nothing", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    const first = await deploy(f, 1, "active");
    await expectProblem(await post(f, "/rollback", { revision: "rev_nope" }), 404, "not_found");
    const pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect(pointers.active?.revisionId).toBe(first.revision.id);
  });

  it("bad deploy requests are refused and store nothing", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    for (const body of [
      { version: 1 },
      { version: 0, channel: "active" },
      { version: 1, channel: "canary" },
    ]) {
      await expectProblem(await post(f, "/deployments", body), 400, "invalid_request");
    }
    await expectProblem(await post(f, "/deployments", { version: 9, channel: "active" }), 404, "not_found");
    const count = await env.DB.prepare("select count(*) as n from hook_revisions where workspace_uid = ?")
      .bind(f.ws)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });
});

describe("reset", () => {
  it("removes the draft, versions, revisions and their R2 objects, keeps an attributed reset event, and releases allowances", async () => {
    const f = await fixture();
    const { saved } = await saveAndTest(f, ECHO_ADAPTER("1"));
    await deploy(f, 1, "active");
    const reset = await json<{ event: Record<string, unknown>; released: Record<string, number> }>(
      await post(f, "/reset"),
      200,
    );
    expect(reset.event).toMatchObject({ actor: "alice", versionsRemoved: 1, revisionsRemoved: 1 });
    expect(reset.released.deployedCodeBytes).toBeGreaterThan(0);
    expect(reset.released.draftHistoryBytes).toBeGreaterThan(0);
    for (const table of ["hook_versions", "hook_revisions", "hook_test_runs"]) {
      const n = await env.DB.prepare(`select count(*) as n from ${table} where workspace_uid = ?`)
        .bind(f.ws)
        .first<{ n: number }>();
      expect(n?.n, table).toBe(0);
    }
    const listed = await env.CODE.list({ prefix: `ws/${f.ws}/` });
    expect(listed.objects).toEqual([]);
    const { body } = await getHook(f);
    expect(body.draft).toMatchObject({ version: 0, source: "" });
    expect(body.deployments).toEqual({ active: null, shadow: null });
    // An ETag from before the reset never matches again.
    const stale = await call("PUT", `${f.hook}/draft`, {
      key: f.key,
      body: { source: "x" },
      headers: { "if-match": saved.etag },
    });
    await expectProblem(stale, 412, "precondition_failed");
    const events = await env.DB.prepare("select * from hook_reset_events where workspace_uid = ?")
      .bind(f.ws)
      .all();
    expect(events.results).toHaveLength(1);
  });

  it("only deletes its own hook's R2 objects", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    await deploy(f, 1, "active");
    const other = await searchHook();
    await saveAndTest(other, SEED_ADAPTER);
    await deploy(other, 1, "active");
    await json(await post(f, "/reset"), 200);
    const remaining = await env.CODE.list({ prefix: `ws/${other.ws}/` });
    expect(remaining.objects).toHaveLength(1);
  });
});

describe("compile and types", () => {
  it("compiles the draft and reports its public contract", async () => {
    const f = await searchHook();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER });
    const res = await json(await post(f, "/compile"), 200);
    expect(res).toMatchObject({
      version: 1,
      stages: ["before", "after"],
      publicContract: { description: "Search public release notes" },
    });
  });

  it("a draft that does not compile answers 422 with diagnostics", async () => {
    const f = await fixture();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: "export default defineToolAdapter({" });
    const problem = await expectProblem(await post(f, "/compile"), 422, "compile_failed");
    expect(problem.diagnostics).toEqual([
      expect.objectContaining({ code: "syntax_error", line: expect.any(Number) }),
    ]);
  });

  it("generates TypeScript declarations from the tool's upstream schemas", async () => {
    const f = await searchHook();
    const res = await call("GET", `${f.hook}/types`, { key: f.readKey });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/type Args/);
    expect(text).toContain("q");
    expect(text).toContain("defineToolAdapter");
  });
});

describe("limit: compilationsPerHour", () => {
  it("the 120th compilation in an hour passes and the 121st answers 429 with Retry-After", async () => {
    const f = await fixture();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: ECHO_ADAPTER("1") });
    const keyRow = await env.DB.prepare("select id from api_keys where workspace_uid = ? and actor = 'alice'")
      .bind(f.ws)
      .first<{ id: string }>();
    const stub = env.WORKSPACE.getByName(f.ws);
    for (let i = 0; i < 119; i++) await stub.chargeCompilation(keyRow?.id ?? "", Date.now());
    expect((await post(f, "/compile")).status).toBe(200);
    const refused = await post(f, "/compile");
    await expectProblem(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another key of the same workspace has its own window.
    expect((await call("POST", `${f.hook}/compile`, { key: f.readKey })).status).toBe(403);
  });
});

describe("deployment route access", () => {
  /** [method, path suffix, body, scope it needs] */
  const ROUTES: [string, string, unknown, "hooks:read" | "hooks:write"][] = [
    ["POST", "/compile", undefined, "hooks:write"],
    ["POST", "/test", { stage: "before", arguments: { text: "x" } }, "hooks:write"],
    ["GET", "/types", undefined, "hooks:read"],
    ["POST", "/deployments", { version: 1, channel: "active" }, "hooks:write"],
    ["GET", "/revisions", undefined, "hooks:read"],
    ["POST", "/rollback", { revision: "rev_x" }, "hooks:write"],
    ["DELETE", "/shadow", undefined, "hooks:write"],
    ["POST", "/reset", undefined, "hooks:write"],
  ];

  it("a key of another workspace is refused with 403 on every deployment route and changes nothing", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    const { revision } = await deploy(f, 1, "active");
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    for (const [method, suffix, body] of ROUTES) {
      await expectProblem(await call(method, `${f.hook}${suffix}`, { key, body }), 403, "forbidden");
    }
    const pointers = await env.WORKSPACE.getByName(f.ws).getPointers(`tool:${f.toolUid}`);
    expect(pointers.active?.revisionId).toBe(revision.id);
    const versions = await env.DB.prepare("select count(*) as n from hook_versions where workspace_uid = ?")
      .bind(f.ws)
      .first<{ n: number }>();
    expect(versions?.n).toBe(1);
  });

  it("a hooks:read key reads but cannot compile, test, deploy, roll back, drop or reset", async () => {
    const f = await fixture();
    await saveAndTest(f, ECHO_ADAPTER("1"));
    const statuses: number[] = [];
    for (const [method, suffix, body] of ROUTES) {
      const res = await call(method, `${f.hook}${suffix}`, { key: f.readKey, body });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual(ROUTES.map(([, , , scope]) => (scope === "hooks:write" ? 403 : 200)));
  });
});
