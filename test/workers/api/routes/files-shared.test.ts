// A workspace's files and its tool hooks share one lifecycle core and one
// WorkspaceObject: they never touch each other's state, and every quota and
// allowance counts both.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkspaceObject } from "../../../../durable-objects/workspace/object";
import { storedDraft } from "../../../../workers/api/lifecycle/draft";
import { LIMITS } from "../../../../shared/limits";
import { createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";
import { fixture, getHook, saveOk } from "../lifecycle/harness";
import {
  call,
  deployFile,
  fileFixture,
  fileTarget,
  fileUrl,
  LIB_SOURCE,
  saveAndTest,
  saveFile,
  type FileFixture,
} from "./files-harness";

const ECHO_ADAPTER = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: { text: String(a.text) + "!" } }),
});
`;

const T0 = Date.UTC(2031, 4, 6, 10, 0, 0);

describe("a file and a tool hook in one workspace", () => {
  it("keep their own drafts, revisions, pointers and R2 objects; resetting the file leaves the tool's hook alone", async () => {
    const t = await fixture();
    const f: FileFixture = { ws: t.ws, key: t.key, readKey: t.readKey };
    const tool = await saveOk(t, (await getHook(t)).etag ?? "", { source: ECHO_ADAPTER });
    await json(
      await call("POST", `${t.hook}/test`, {
        key: t.key,
        body: { stage: "before", arguments: { text: "x" } },
      }),
      200,
    );
    const toolDeploy = await json<{ revision: { id: string } }>(
      await call("POST", `${t.hook}/deployments`, { key: t.key, body: { version: 1, channel: "active" } }),
      201,
    );
    const path = "lib/request-policy.ts";
    await saveAndTest(f, path, LIB_SOURCE("1"));
    const fileDeploy = await deployFile(f, path, 1, "active");
    expect(fileDeploy.revision.id).not.toBe(toolDeploy.revision.id);

    // Each one's history and revisions are its own.
    const fileVersions = await json<{ items: unknown[] }>(
      await call("GET", fileUrl(f, path, "/versions"), { key: f.key }),
      200,
    );
    expect(fileVersions.items).toHaveLength(1);
    const toolRevisions = await json<{ items: { id: string }[] }>(
      await call("GET", `${t.hook}/revisions`, { key: t.key }),
      200,
    );
    expect(toolRevisions.items.map((r) => r.id)).toEqual([toolDeploy.revision.id]);
    await expectProblem(
      await call("POST", fileUrl(f, path, "/rollback"), {
        key: f.key,
        body: { revision: toolDeploy.revision.id },
      }),
      404,
      "not_found",
    );
    // The file list shows files only.
    const files = await json<{ items: { path: string }[] }>(
      await call("GET", `/v1/workspaces/${t.ws}/files`, { key: t.key }),
      200,
    );
    expect(files.items.map((i) => i.path)).toEqual([path]);

    await json(await call("POST", fileUrl(f, path, "/reset"), { key: f.key }), 200);
    const stub = env.WORKSPACE.getByName(t.ws);
    expect((await stub.getPointers(`tool:${t.toolUid}`)).active?.revisionId).toBe(toolDeploy.revision.id);
    expect((await stub.getPointers(fileTarget(path))).active).toBeNull();
    const objects = await env.CODE.list({ prefix: `ws/${t.ws}/` });
    expect(objects.objects.map((o) => o.key)).toEqual([
      expect.stringContaining(`/hooks/${encodeURIComponent(`tool:${t.toolUid}`)}/code/`),
    ]);
    const { body, etag } = await getHook(t);
    expect(etag).toBe(tool.etag);
    expect(body.draft.version).toBe(1);
  });
});

/** Pins the WorkspaceObject's clock (quota windows take an injectable clock). */
async function setClock(ws: string, at: number) {
  await runInDurableObject(env.WORKSPACE.getByName(ws), (instance: WorkspaceObject) => {
    instance.clock = () => at;
  });
}

describe("quotas and allowances are the workspace's, shared with tool hooks", () => {
  it("draft saves: 119 saves of a tool hook, then the file's save is the 120th and the next one is 429", async () => {
    const f = await fileFixture();
    await setClock(f.ws, T0);
    const stub = env.WORKSPACE.getByName(f.ws);
    let etag = '"g0.v0"';
    for (let i = 1; i < LIMITS.draftSavesPerHour; i++) {
      const outcome = await stub.saveDraft({
        workspaceUid: f.ws,
        target: "tool:tool_filler",
        ifMatch: [etag],
        draft: await storedDraft({ source: `export const n = ${i};`, configJson: "{}", formatted: false }),
        actor: "alice",
        keyId: "key_filler",
        channel: "api",
        note: null,
        restoredFrom: null,
        now: Date.now(),
      });
      if (outcome.kind !== "saved") throw new Error(`save ${i} was ${outcome.kind}`);
      etag = outcome.head.etag;
    }
    const saved = await saveFile(f, "lib/a.ts", LIB_SOURCE("1"));
    const refused = await call("PUT", fileUrl(f, "lib/a.ts", "/draft"), {
      key: f.key,
      body: { source: LIB_SOURCE("2") },
      headers: { "if-match": saved.etag },
    });
    expect(await expectProblem(refused, 429, "rate_limited")).toMatchObject({
      quota: "draftSaves",
      used: 120,
    });
  });

  it("compilations are counted per key across tools and files", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/a.ts", LIB_SOURCE("1"));
    const keyId = await env.DB.prepare("select id from api_keys where workspace_uid = ? and actor = 'alice'")
      .bind(f.ws)
      .first<{ id: string }>();
    const stub = env.WORKSPACE.getByName(f.ws);
    // One hour window for the whole test, wherever the wall clock is in its hour.
    await setClock(f.ws, Date.parse("2031-01-01T10:30:00Z"));
    for (let i = 0; i < LIMITS.compilationsPerHour - 1; i++)
      await stub.chargeCompilation(keyId?.id ?? "", Date.now());
    expect((await call("POST", fileUrl(f, "lib/a.ts", "/compile"), { key: f.key })).status).toBe(200);
    const refused = await call("POST", fileUrl(f, "lib/a.ts", "/test"), { key: f.key, body: { input: {} } });
    await expectProblem(refused, 429, "rate_limited");
  });

  it("deployed code: a file's deploy is refused once the workspace's active + shadow code would pass 16 MiB", async () => {
    const f = await fileFixture();
    await saveAndTest(f, "lib/a.ts", LIB_SOURCE("1"));
    const stub = env.WORKSPACE.getByName(f.ws);
    // A tool hook already holds almost all of the allowance.
    await stub.setPointer(
      "tool:tool_big",
      "active",
      "rev_big",
      LIMITS.deployedCodeBytesPerWorkspace - 100,
      Date.now(),
    );
    const res = await call("POST", fileUrl(f, "lib/a.ts", "/deployments"), {
      key: f.key,
      body: { version: 1, channel: "active" },
    });
    expect(await expectProblem(res, 413, "allowance_exceeded")).toMatchObject({
      allowance: "deployedCodeBytes",
    });
  });

  it("draft history: a file's save is refused when tool history fills the 64 MiB allowance", async () => {
    const ws = (await createWorkspace("files")).uid;
    const source = "export function main() { return 1; }\n";
    await env.DB.prepare(
      `insert into hook_versions (id, workspace_uid, target, generation, number, source, config, formatted, bytes,
         content_hash, actor, key_id, channel, created_at)
       values (?, ?, 'tool:filler', 0, 1, '', '{}', 0, ?, 'x', 'seed', 'seed', 'api', '2031-01-01T00:00:00.000Z')`,
    )
      .bind(crypto.randomUUID(), ws, LIMITS.draftHistoryBytesPerWorkspace - source.length - 1)
      .run();
    const { key } = await createKey(ws, ["hooks:write"], "alice");
    const res = await call("PUT", `/v1/workspaces/${ws}/files/lib%2Fa.ts/draft`, {
      key,
      body: { source },
      headers: { "if-match": '"g0.v0"' },
    });
    expect(await expectProblem(res, 413, "allowance_exceeded")).toMatchObject({
      allowance: "draftHistoryBytes",
    });
  });
});

describe("file route access", () => {
  const ROUTES: [string, string, unknown, "hooks:read" | "hooks:write"][] = [
    ["GET", "", undefined, "hooks:read"],
    ["GET", "/versions", undefined, "hooks:read"],
    ["POST", "/compile", undefined, "hooks:write"],
    ["POST", "/test", { input: {} }, "hooks:write"],
    ["POST", "/deployments", { version: 1, channel: "active" }, "hooks:write"],
    ["GET", "/revisions", undefined, "hooks:read"],
    ["POST", "/rollback", { revision: "rev_x" }, "hooks:write"],
    ["DELETE", "/shadow", undefined, "hooks:write"],
    ["GET", "/logs", undefined, "hooks:read"],
    ["POST", "/reset", undefined, "hooks:write"],
  ];

  it("a hooks:read key reads but cannot write; a key of another workspace gets 403 everywhere", async () => {
    const f = await fileFixture();
    await saveAndTest(f, "lib/a.ts", LIB_SOURCE("1"));
    const other = await fileFixture();
    const statuses: number[] = [];
    for (const [method, suffix, body] of ROUTES) {
      const res = await call(method, fileUrl(f, "lib/a.ts", suffix), { key: f.readKey, body });
      statuses.push(res.status);
      await res.body?.cancel();
      await expectProblem(
        await call(method, fileUrl(f, "lib/a.ts", suffix), { key: other.key, body }),
        403,
        "forbidden",
      );
    }
    expect(statuses).toEqual(ROUTES.map(([, , , scope]) => (scope === "hooks:write" ? 403 : 200)));
    await expectProblem(
      await call("GET", `/v1/workspaces/${f.ws}/files`, { key: other.key }),
      403,
      "forbidden",
    );
  });
});
