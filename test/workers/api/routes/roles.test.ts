// What each browser role may do, route family by route family: a viewer reads
// but writes nothing; an editor saves, tests and deploys but does not reset or
// manage keys, users, secrets or config; an admin does all of it. Also what
// users' actions record (actor = user name, channel web), captured log details
// (admins only), and the compilation quota counted per user.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import type { WorkspaceObject } from "../../../../durable-objects/workspace/object";
import { createWorkspace, expectProblem, json } from "../../../helpers/api";
import { asUser, type SignedIn, signIn } from "../../../helpers/session";
import { record, runRecord } from "../../../shared/logs/harness";
import { MINIMAL } from "../compiler/fixtures";
import { LIB_SOURCE } from "./files-harness";

const PATH = "lib/roles.ts";
const file = (ws: string, suffix = "") => `/v1/workspaces/${ws}/files/${encodeURIComponent(PATH)}${suffix}`;

/** Saves the draft as `s` (reading its ETag first). */
async function save(s: SignedIn, source: string) {
  const read = await asUser(s, "GET", file(s.workspace));
  const etag = read.headers.get("etag") ?? "";
  await read.body?.cancel();
  return asUser(s, "PUT", file(s.workspace, "/draft"), { body: { source }, headers: { "if-match": etag } });
}

async function workspaceWithUsers() {
  const ws = (await createWorkspace("roles")).uid;
  const [viewer, editor, admin] = [
    await signIn(ws, "viewer", "vera"),
    await signIn(ws, "editor", "eddie"),
    await signIn(ws, "admin", "adele"),
  ];
  return { ws, viewer, editor, admin };
}

const status = async (res: Response) => {
  await res.body?.cancel();
  return res.status;
};

describe("roles", () => {
  it("a viewer reads every family but every write is 403", async () => {
    const { ws, viewer } = await workspaceWithUsers();
    for (const path of [
      `/v1/workspaces/${ws}`,
      `/v1/workspaces/${ws}/services`,
      `/v1/workspaces/${ws}/files`,
      file(ws),
      `/v1/workspaces/${ws}/hooks/logs`,
      `/v1/workspaces/${ws}/config`,
      `/v1/workspaces/${ws}/quotas`,
    ]) {
      expect(await status(await asUser(viewer, "GET", path)), path).toBe(200);
    }
    await expectProblem(await save(viewer, LIB_SOURCE("v")), 403, "forbidden");
    for (const [method, path, body] of [
      ["POST", file(ws, "/test"), { input: {} }],
      ["POST", file(ws, "/deployments"), { version: 1, channel: "active" }],
      ["POST", file(ws, "/reset"), undefined],
      ["POST", `/v1/workspaces/${ws}/services`, { name: "s", url: "http://upstream.test/x/mcp" }],
      ["POST", `/v1/workspaces/${ws}/keys`, { scopes: ["hooks:read"], actor: "k" }],
      ["GET", `/v1/workspaces/${ws}/users`, undefined],
      ["PUT", `/v1/workspaces/${ws}/secrets/s`, { value: "v" }],
    ] as const) {
      const refused = await expectProblem(await asUser(viewer, method, path, { body }), 403, "forbidden");
      expect(refused.detail, `${method} ${path}`).toContain("viewer");
    }
    expect(
      (
        await env.DB.prepare("select count(*) as n from hook_versions where workspace_uid = ?")
          .bind(ws)
          .first<{ n: number }>()
      )?.n,
    ).toBe(0);
  });

  it("an editor saves, tests and deploys (attributed to the user, channel web) but cannot reset or manage", async () => {
    const { ws, editor } = await workspaceWithUsers();
    const saved = await json<{ version: number; draft: { actor: string; channel: string } }>(
      await save(editor, LIB_SOURCE("e")),
      200,
    );
    expect(saved.draft).toMatchObject({ actor: "eddie", channel: "web" });
    const run = await json<{ ok: boolean }>(
      await asUser(editor, "POST", file(ws, "/test"), { body: { input: {} } }),
      200,
    );
    expect(run.ok).toBe(true);
    const deployed = await asUser(editor, "POST", file(ws, "/deployments"), {
      body: { version: 1, channel: "active" },
    });
    expect(await status(deployed)).toBe(201);
    const versions = await json<{ items: { actor: string; channel: string; keyId?: string }[] }>(
      await asUser(editor, "GET", file(ws, "/versions")),
      200,
    );
    expect(versions.items[0]).toMatchObject({ actor: "eddie", channel: "web" });
    const stored = await env.DB.prepare(
      "select actor, key_id, channel from hook_versions where workspace_uid = ?",
    )
      .bind(ws)
      .first();
    expect(stored).toEqual({ actor: "eddie", key_id: `user:${editor.user.id}`, channel: "web" });
    const pointer = await env.DB.prepare("select actor from hook_pointer_events where workspace_uid = ?")
      .bind(ws)
      .first();
    expect(pointer).toEqual({ actor: "eddie" });

    for (const [method, path, body] of [
      ["POST", file(ws, "/reset"), undefined],
      ["POST", `/v1/workspaces/${ws}/keys`, { scopes: ["hooks:read"], actor: "k" }],
      ["GET", `/v1/workspaces/${ws}/keys`, undefined],
      ["POST", `/v1/workspaces/${ws}/users`, { name: "n", role: "viewer" }],
      ["GET", `/v1/workspaces/${ws}/users`, undefined],
      ["PUT", `/v1/workspaces/${ws}/secrets/s`, { value: "v" }],
      ["PUT", `/v1/workspaces/${ws}/config`, {}],
    ] as const) {
      await expectProblem(await asUser(editor, method, path, { body }), 403, "forbidden");
    }
    // The refused reset changed nothing.
    expect(
      (await json<{ draft: { version: number } }>(await asUser(editor, "GET", file(ws)), 200)).draft.version,
    ).toBe(1);
  }, 120_000);

  it("an admin resets, and manages keys, users, secrets and config", async () => {
    const { ws, admin } = await workspaceWithUsers();
    await json(await save(admin, LIB_SOURCE("a")), 200);
    await json(await asUser(admin, "POST", file(ws, "/reset")), 200);
    await json(
      await asUser(admin, "POST", `/v1/workspaces/${ws}/keys`, {
        body: { scopes: ["hooks:read"], actor: "k" },
      }),
      201,
    );
    await json(await asUser(admin, "GET", `/v1/workspaces/${ws}/keys`), 200);
    await json(
      await asUser(admin, "POST", `/v1/workspaces/${ws}/users`, { body: { name: "n", role: "viewer" } }),
      201,
    );
    expect(
      await status(await asUser(admin, "PUT", `/v1/workspaces/${ws}/secrets/s`, { body: { value: "v" } })),
    ).toBe(204);
    const config = await asUser(admin, "GET", `/v1/workspaces/${ws}/config`);
    const etag = config.headers.get("etag") ?? "";
    await config.body?.cancel();
    const put = await asUser(admin, "PUT", `/v1/workspaces/${ws}/config`, {
      body: {},
      headers: { "if-match": etag },
    });
    expect(await status(put)).toBe(200);
    const reset = await env.DB.prepare("select actor from hook_reset_events where workspace_uid = ?")
      .bind(ws)
      .first();
    expect(reset).toEqual({ actor: "adele" });
  });

  it("a user of one workspace is refused in another", async () => {
    const { admin } = await workspaceWithUsers();
    const other = (await createWorkspace("other")).uid;
    await expectProblem(await asUser(admin, "GET", `/v1/workspaces/${other}`), 403, "forbidden");
  });
});

describe("captured log details", () => {
  it("are shown to admin users only", async () => {
    const { ws, viewer, editor, admin } = await workspaceWithUsers();
    await record([runRecord(ws)]);
    const logs = `/v1/workspaces/${ws}/hooks/logs`;
    for (const s of [viewer, editor]) {
      const page = await json<{ items: Record<string, unknown>[] }>(await asUser(s, "GET", logs), 200);
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).not.toHaveProperty("details");
    }
    const page = await json<{ items: { details?: { message?: string } }[] }>(
      await asUser(admin, "GET", logs),
      200,
    );
    expect(page.items[0]?.details?.message).toBe("Preparing search");
  });
});

/** A stateless compile of a minimal adapter as `s`. */
const compile = (s: SignedIn) => asUser(s, "POST", "/v1/compile", { body: { source: MINIMAL } });

describe("quotas", () => {
  it("compilations count per user: at the limit passes, one over is 429; others and the quotas view follow", async () => {
    const { ws, editor, admin } = await workspaceWithUsers();
    await runInDurableObject(env.WORKSPACE.getByName(ws), (instance: WorkspaceObject) => {
      for (let i = 0; i < LIMITS.compilationsPerHour - 1; i++) {
        expect(instance.chargeCompilation(`user:${editor.user.id}`, Date.now()).ok).toBe(true);
      }
    });
    const before = await json<{ compilations: { used: number; remaining: number; limit: number } }>(
      await asUser(editor, "GET", `/v1/workspaces/${ws}/quotas`),
      200,
    );
    expect(before.compilations).toMatchObject({ used: LIMITS.compilationsPerHour - 1, remaining: 1 });
    expect(await status(await compile(editor))).toBe(200);
    const refused = await compile(editor);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectProblem(refused, 429, "rate_limited");
    // Another user of the workspace has its own counter.
    expect(await status(await compile(admin))).toBe(200);
    const quotas = await json<
      Record<string, { limit: number; used: number; remaining: number; resetAt: string }>
    >(await asUser(editor, "GET", `/v1/workspaces/${ws}/quotas`), 200);
    expect(quotas.compilations).toEqual({
      limit: LIMITS.compilationsPerHour,
      used: LIMITS.compilationsPerHour,
      remaining: 0,
      resetAt: expect.any(String),
    });
    expect(quotas.saves).toMatchObject({
      limit: LIMITS.draftSavesPerHour,
      used: 0,
      remaining: LIMITS.draftSavesPerHour,
    });
    const adminView = await json<{ compilations: { used: number } }>(
      await asUser(admin, "GET", `/v1/workspaces/${ws}/quotas`),
      200,
    );
    expect(adminView.compilations.used).toBe(1);
  });
});
