// Authentication and scopes: who may call a route, in which workspace, and
// what each refusal says.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../shared/auth/keys";
import type { Scope } from "../../../../shared/auth/principal";
import { requirePlatformAdmin, requireScope } from "../../../../workers/api/middleware/auth";
import { BOOTSTRAP_KEY } from "../../../helpers/api";
import { asUser, signIn } from "../../../helpers/session";
import { expectProblem, send, testApp } from "./app";

const app = testApp()
  .get("/v1/workspaces/:ws/hooks", requireScope("hooks:read"), (c) => c.json(c.get("principal")))
  .post("/v1/workspaces/:ws/hooks", requireScope("hooks:write"), (c) => c.json(c.get("principal")))
  .post("/v1/workspaces/:ws/keys", requireScope("admin"), (c) => c.json(c.get("principal")))
  .post("/v1/compile", requireScope("hooks:write"), (c) => c.json(c.get("principal")))
  .post("/v1/workspaces", requirePlatformAdmin, (c) => c.json(c.get("principal")));

const as = (key: string | null, method: string, path: string, scheme = "Bearer") =>
  send(app, path, { method, headers: key === null ? {} : { authorization: `${scheme} ${key}` } });

async function workspace(): Promise<string> {
  const uid = `ws_${crypto.randomUUID()}`;
  await env.DB.prepare("insert into workspaces (uid, name, created_by) values (?, 'auth', 'tester')")
    .bind(uid)
    .run();
  return uid;
}

/** A key of `ws` with `scopes`, stored the way the API stores keys (hash only). */
async function newKey(ws: string, scopes: Scope[], revoked = false): Promise<{ id: string; token: string }> {
  const id = `key_${crypto.randomUUID()}`;
  const token = `rr_${crypto.randomUUID()}`;
  await env.DB.prepare(
    "insert into api_keys (id, workspace_uid, secret_hash, scopes, actor, revoked_at) values (?, ?, ?, ?, 'alice', ?)",
  )
    .bind(id, ws, await sha256Hex(token), JSON.stringify(scopes), revoked ? new Date().toISOString() : null)
    .run();
  return { id, token };
}

describe("authentication", () => {
  it("without a bearer token: 401 with a Bearer challenge", async () => {
    const ws = await workspace();
    for (const res of [
      await as(null, "GET", `/v1/workspaces/${ws}/hooks`),
      await as("abc", "GET", `/v1/workspaces/${ws}/hooks`, "Basic"),
      await as("", "GET", `/v1/workspaces/${ws}/hooks`),
    ]) {
      const body = await expectProblem(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="rayrun"');
      expect(body.detail).toMatch(/Bearer/);
    }
  });

  it("an unknown or revoked key: 401 invalid_token", async () => {
    const ws = await workspace();
    const revoked = await newKey(ws, ["admin"], true);
    for (const token of [`rr_${crypto.randomUUID()}`, revoked.token]) {
      const res = await as(token, "GET", `/v1/workspaces/${ws}/hooks`);
      await expectProblem(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  it("the scheme name is case-insensitive", async () => {
    const ws = await workspace();
    const reader = await newKey(ws, ["hooks:read"]);
    expect((await as(reader.token, "GET", `/v1/workspaces/${ws}/hooks`, "bearer")).status).toBe(200);
  });

  it("the handler sees who called", async () => {
    const ws = await workspace();
    const reader = await newKey(ws, ["hooks:read"]);
    const res = await as(reader.token, "GET", `/v1/workspaces/${ws}/hooks`);
    expect(await res.json()).toEqual({
      kind: "key",
      actor: "alice",
      keyId: reader.id,
      workspaceUid: ws,
      scopes: ["hooks:read"],
    });
  });
});

describe("requireScope", () => {
  it("a key needs the route's scope; hooks:write includes hooks:read; admin covers every scope", async () => {
    const ws = await workspace();
    const reader = await newKey(ws, ["hooks:read"]);
    const writer = await newKey(ws, ["hooks:write"]);
    const caller = await newKey(ws, ["tools:call"]);
    const admin = await newKey(ws, ["admin"]);
    const hooks = `/v1/workspaces/${ws}/hooks`;
    expect((await as(reader.token, "GET", hooks)).status).toBe(200);
    const refused = await expectProblem(await as(reader.token, "POST", hooks), 403, "forbidden");
    expect(refused.detail).toContain("hooks:write");
    expect((await as(writer.token, "GET", hooks)).status).toBe(200);
    expect((await as(writer.token, "POST", hooks)).status).toBe(200);
    await expectProblem(await as(caller.token, "GET", hooks), 403, "forbidden");
    await expectProblem(await as(writer.token, "POST", `/v1/workspaces/${ws}/keys`), 403, "forbidden");
    for (const [method, path] of [
      ["GET", hooks],
      ["POST", hooks],
      ["POST", `/v1/workspaces/${ws}/keys`],
    ] as const) {
      expect((await as(admin.token, method, path)).status, `${method} ${path}`).toBe(200);
    }
  });

  it("a workspace key is refused in every other workspace, even as admin, existing or not", async () => {
    const mine = await workspace();
    const other = await workspace();
    const admin = await newKey(mine, ["admin"]);
    await expectProblem(await as(admin.token, "GET", `/v1/workspaces/${other}/hooks`), 403, "forbidden");
    // Refused as forbidden, never as not found: a key learns nothing about other workspaces.
    await expectProblem(
      await as(admin.token, "GET", `/v1/workspaces/ws_${crypto.randomUUID()}/hooks`),
      403,
      "forbidden",
    );
  });

  it("a key of another workspace is told so, not blamed for a scope, for an existing and an unknown workspace alike", async () => {
    const mine = await workspace();
    const other = await workspace();
    const admin = await newKey(mine, ["admin"]);
    const existing = await expectProblem(
      await as(admin.token, "GET", `/v1/workspaces/${other}/hooks`),
      403,
      "forbidden",
    );
    const unknown = await expectProblem(
      await as(admin.token, "GET", "/v1/workspaces/ws_doesnotexist/hooks"),
      403,
      "forbidden",
    );
    // The gateway's wording for the same refusal.
    expect(existing.detail).toContain("This key belongs to another workspace");
    expect(existing.detail).not.toContain("scope");
    expect(unknown.detail).toBe(existing.detail?.replaceAll(other, "ws_doesnotexist"));
  });

  it("a console user of another workspace gets one forbidden answer naming no role, whether the workspace exists or not", async () => {
    const mine = await workspace();
    const other = await workspace();
    const adele = await signIn(mine, "admin");
    const existing = await expectProblem(
      await asUser(adele, "GET", `/v1/workspaces/${other}/services`),
      403,
      "forbidden",
    );
    const unknown = await expectProblem(
      await asUser(adele, "GET", "/v1/workspaces/ws_doesnotexist/services"),
      403,
      "forbidden",
    );
    expect(existing.detail).toContain("This session is signed in to another workspace");
    expect(existing.detail).not.toMatch(/role|scope/);
    // Nothing tells a stranger whether a workspace exists.
    expect(unknown.detail).toBe(existing.detail?.replaceAll(other, "ws_doesnotexist"));
    // In its own workspace a role it lacks is still named.
    const viewer = await signIn(mine, "viewer");
    const refused = await expectProblem(
      await asUser(viewer, "GET", `/v1/workspaces/${mine}/users`),
      403,
      "forbidden",
    );
    expect(refused.detail).toContain("viewer role");
  });

  it("the platform key passes every scope in a workspace that exists", async () => {
    const ws = await workspace();
    const res = await as(BOOTSTRAP_KEY, "POST", `/v1/workspaces/${ws}/keys`);
    expect(await res.json()).toEqual({ kind: "platform", actor: "bootstrap", keyId: "bootstrap" });
  });

  it("the platform key naming a workspace that does not exist: 404 workspace_not_found", async () => {
    const missing = `ws_${crypto.randomUUID()}`;
    const body = await expectProblem(
      await as(BOOTSTRAP_KEY, "GET", `/v1/workspaces/${missing}/hooks`),
      404,
      "workspace_not_found",
    );
    expect(body.detail).toContain(missing);
  });

  it("a workspace created after a miss is found at once", async () => {
    const uid = `ws_${crypto.randomUUID()}`;
    await expectProblem(
      await as(BOOTSTRAP_KEY, "GET", `/v1/workspaces/${uid}/hooks`),
      404,
      "workspace_not_found",
    );
    await env.DB.prepare("insert into workspaces (uid, name, created_by) values (?, 'late', 'tester')")
      .bind(uid)
      .run();
    expect((await as(BOOTSTRAP_KEY, "GET", `/v1/workspaces/${uid}/hooks`)).status).toBe(200);
  });

  it("on a route without a workspace only the scope counts", async () => {
    const ws = await workspace();
    const writer = await newKey(ws, ["hooks:write"]);
    const reader = await newKey(ws, ["hooks:read"]);
    expect((await as(writer.token, "POST", "/v1/compile")).status).toBe(200);
    await expectProblem(await as(reader.token, "POST", "/v1/compile"), 403, "forbidden");
  });
});

describe("requirePlatformAdmin", () => {
  it("only the platform key passes; a workspace admin key is forbidden", async () => {
    const ws = await workspace();
    const admin = await newKey(ws, ["admin"]);
    expect((await as(BOOTSTRAP_KEY, "POST", "/v1/workspaces")).status).toBe(200);
    await expectProblem(await as(admin.token, "POST", "/v1/workspaces"), 403, "forbidden");
    await expectProblem(await as(null, "POST", "/v1/workspaces"), 401, "unauthorized");
    await expectProblem(await as(`${BOOTSTRAP_KEY}x`, "POST", "/v1/workspaces"), 401, "unauthorized");
  });
});
