// Workspace files: deployments to shadow and active, rollback, reset and
// logs — the tool hooks' lifecycle — and loading the deployed revision.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadDeployedFile } from "../../../../shared/deploy/deployed-file";
import { exportPath } from "../../../../shared/files/exports";
import { recordRuns } from "../../../../shared/logs/writer";
import { runModuleExport } from "../../../../shared/sandbox";
import { expectProblem, json } from "../../../helpers/api";
import {
  call,
  deployFile,
  fileFixture,
  fileTarget,
  fileUrl,
  LIB_SOURCE,
  PLUGIN_SOURCE,
  post,
  saveAndTest,
  saveFile,
  testFile,
  type Revision,
} from "./files-harness";

describe("deployments", () => {
  it("a tested version deploys to shadow and active: code in R2 under the file's target, exports with the revision", async () => {
    const f = await fileFixture();
    const path = "lib/request-policy.ts";
    await saveFile(f, path, LIB_SOURCE("1"));
    await expectProblem(
      await post(f, path, "/deployments", { version: 1, channel: "active" }),
      409,
      "not_tested",
    );
    await testFile(f, path, { input: {} });
    const shadow = await deployFile(f, path, 1, "shadow");
    expect(shadow.reused).toBe(false);
    expect(shadow.revision).toMatchObject({ version: 1, exports: ["enrich", "main"] });
    expect(shadow.revision).not.toHaveProperty("publicContract");
    const active = await deployFile(f, path, 1, "active");
    expect(active).toMatchObject({ reused: true, revision: { id: shadow.revision.id } });
    const row = await env.DB.prepare(
      "select code_key, exports, definition_hash from hook_revisions where id = ?",
    )
      .bind(shadow.revision.id)
      .first<{ code_key: string; exports: string; definition_hash: string }>();
    expect(row).toEqual({
      code_key: `ws/${f.ws}/hooks/${encodeURIComponent(fileTarget(path))}/code/${shadow.revision.codeHash}.js`,
      exports: '["enrich","main"]',
      definition_hash: "",
    });
    expect(await (await env.CODE.get(row?.code_key ?? ""))?.text()).toContain("__rayrunModule");
    // What the LLM path runs: the active revision's code and export names.
    const deployed = await loadDeployedFile(env, f.ws, path);
    expect(deployed).toMatchObject({
      path,
      kind: "lib",
      revisionId: shadow.revision.id,
      version: 1,
      exports: ["enrich", "main"],
    });
    const ran = await runModuleExport({
      code: deployed?.code ?? "",
      exportPath: exportPath("lib", "main"),
      input: { text: "x" },
      nowMs: 0,
      seed: "req",
    });
    expect(ran.outcome).toEqual({ ok: true, value: { value: { text: "x1" } } });
    expect(await loadDeployedFile(env, f.ws, "lib/other.ts")).toBeNull();
    const listed = await json<{
      items: { path: string; deployments: Record<string, { revisionId: string }> }[];
    }>(await call("GET", `/v1/workspaces/${f.ws}/files`, { key: f.readKey }), 200);
    expect(listed.items[0]?.deployments).toEqual({
      active: { revisionId: shadow.revision.id, setAt: expect.any(String) },
      shadow: { revisionId: shadow.revision.id, setAt: expect.any(String) },
    });
  });

  it("rollback moves a pointer back, DELETE …/shadow drops shadow, revisions list newest first", async () => {
    const f = await fileFixture();
    const path = "plugins/temperature.ts";
    await saveAndTest(f, path, PLUGIN_SOURCE(0.1));
    const first = await deployFile(f, path, 1, "active");
    await saveAndTest(f, path, PLUGIN_SOURCE(0.2));
    const second = await deployFile(f, path, 2, "active");
    await deployFile(f, path, 2, "shadow");
    const revisions = await json<{ items: Revision[] }>(
      await call("GET", fileUrl(f, path, "/revisions"), { key: f.readKey }),
      200,
    );
    expect(revisions.items.map((r) => r.id)).toEqual([second.revision.id, first.revision.id]);
    expect(revisions.items[0]?.exports).toEqual(["chat.params", "tool.execute.after"]);
    const rolled = await json<{ revision: Revision }>(
      await post(f, path, "/rollback", { revision: first.revision.id }),
      200,
    );
    expect(rolled.revision.id).toBe(first.revision.id);
    const dropped = await json<{ dropped: string; deployments: unknown }>(
      await call("DELETE", fileUrl(f, path, "/shadow"), { key: f.key }),
      200,
    );
    expect(dropped).toMatchObject({ dropped: second.revision.id, deployments: { shadow: null } });
    expect(await env.WORKSPACE.getByName(f.ws).getPointers(fileTarget(path))).toMatchObject({
      active: { revisionId: first.revision.id },
      shadow: null,
    });
    const events = await env.DB.prepare("select action from hook_pointer_events where target = ? order by id")
      .bind(fileTarget(path))
      .all<{ action: string }>();
    expect(events.results.map((e) => e.action)).toEqual(["deploy", "deploy", "deploy", "rollback", "drop"]);
    await expectProblem(await post(f, path, "/rollback", { revision: "rev_nope" }), 404, "not_found");
  });

  it("reset removes the file's draft, versions, revisions and R2 objects and keeps a reset event", async () => {
    const f = await fileFixture();
    const path = "lib/a.ts";
    await saveAndTest(f, path, LIB_SOURCE("1"));
    await deployFile(f, path, 1, "active");
    const reset = await json<{ event: Record<string, unknown>; released: Record<string, number> }>(
      await post(f, path, "/reset"),
      200,
    );
    expect(reset.event).toMatchObject({
      actor: "alice",
      target: fileTarget(path),
      versionsRemoved: 1,
      revisionsRemoved: 1,
    });
    expect(reset.released.deployedCodeBytes).toBeGreaterThan(0);
    expect((await env.CODE.list({ prefix: `ws/${f.ws}/` })).objects).toEqual([]);
    const listed = await json<{ items: unknown[] }>(
      await call("GET", `/v1/workspaces/${f.ws}/files`, { key: f.key }),
      200,
    );
    expect(listed.items).toEqual([]);
    const draft = await call("GET", fileUrl(f, path), { key: f.key });
    expect(draft.headers.get("etag")).toBe('"g1.v0"');
    await draft.body?.cancel();
  });
});

describe("logs", () => {
  it("…/files/{path}/logs answers the file's run records only", async () => {
    const f = await fileFixture();
    const base = {
      workspaceUid: f.ws,
      kind: "plugin" as const,
      toolUid: null,
      toolName: null,
      stage: "chat.params" as const,
      channel: "active" as const,
      outcome: "threw" as const,
      code: "hook_threw",
      revisionId: "rev_1",
      durationMs: 1,
      fuelUsed: 10,
      shadowDiffered: null,
      plugin: "redact",
      details: null,
    };
    await recordRuns(
      env,
      [
        {
          ...base,
          target: fileTarget("plugins/redact.ts"),
          requestId: "req_a",
          at: new Date(Date.now() - 2000).toISOString(),
        },
        {
          ...base,
          target: fileTarget("plugins/other.ts"),
          requestId: "req_b",
          at: new Date(Date.now() - 1000).toISOString(),
        },
      ],
      { payloadCapture: false, detailPolicy: "capture" },
    );
    const page = await json<{ items: { requestId: string; target: string; plugin: string }[] }>(
      await call("GET", fileUrl(f, "plugins/redact.ts", "/logs"), { key: f.readKey }),
      200,
    );
    expect(page.items).toEqual([
      expect.objectContaining({ requestId: "req_a", target: "file:plugins/redact.ts", plugin: "redact" }),
    ]);
    await expectProblem(
      await call("GET", fileUrl(f, "plugins/../x.ts", "/logs"), { key: f.readKey }),
      422,
      "invalid_file_path",
    );
  });
});
