// Users of a workspace (admin): invite, list, change role, remove, new
// sign-in links; refusals store nothing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";
import { asUser, exchange, invite, signIn, tokenOf } from "../../../helpers/session";

interface User {
  id: string;
  name: string;
  email: string | null;
  role: string;
  createdAt: string;
  createdBy: string;
  lastSignInAt: string | null;
}

const usersOf = async (ws: string) =>
  (await json<{ users: User[] }>(await call("GET", `/v1/workspaces/${ws}/users`), 200)).users;

describe("users", () => {
  it("an admin invites a user: the user and a one-use link valid for 24 h", async () => {
    const ws = (await createWorkspace("users")).uid;
    const admin = await signIn(ws, "admin", "root-admin");
    const res = await asUser(admin, "POST", `/v1/workspaces/${ws}/users`, {
      body: { name: "  Vic  ", role: "viewer", email: "Vic@Example.COM" },
    });
    const created = await json<{ user: User; signIn: { url: string; expiresAt: string } }>(res, 201);
    expect(created.user).toEqual({
      id: expect.stringMatching(/^usr_/),
      name: "Vic",
      email: "vic@example.com",
      role: "viewer",
      createdAt: expect.any(String),
      createdBy: "root-admin",
      lastSignInAt: null,
    });
    expect(created.signIn.url).toMatch(/^http:\/\/rayrun\.test\/sign-in#token=/);
    const lifetime = Date.parse(created.signIn.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000);
    expect((await usersOf(ws)).map((u) => u.name)).toEqual(["root-admin", "Vic"]);
  });

  it("bad bodies and taken names or emails are refused and store nothing", async () => {
    const ws = (await createWorkspace("users-bad")).uid;
    await invite(ws, "editor", "taken", "taken@example.com");
    const count = async () =>
      (
        await env.DB.prepare("select count(*) as n from users where workspace_uid = ?")
          .bind(ws)
          .first<{ n: number }>()
      )?.n;
    const links = async () =>
      (
        await env.DB.prepare("select count(*) as n from sign_in_links where workspace_uid = ?")
          .bind(ws)
          .first<{ n: number }>()
      )?.n;
    for (const body of [
      {},
      { name: "", role: "viewer" },
      { name: "x", role: "owner" },
      { name: "x", role: "viewer", email: "not-an-email" },
      { name: "x", role: "viewer", extra: true },
      { name: "tab\there", role: "viewer" },
    ]) {
      await expectProblem(await call("POST", `/v1/workspaces/${ws}/users`, { body }), 400, "invalid_request");
    }
    const byName = await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/users`, { body: { name: "taken", role: "admin" } }),
      409,
      "conflict",
    );
    expect(byName.field).toBe("/name");
    const byEmail = await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/users`, {
        body: { name: "other", role: "admin", email: "TAKEN@example.com" },
      }),
      409,
      "conflict",
    );
    expect(byEmail.field).toBe("/email");
    expect(await count()).toBe(1);
    expect(await links()).toBe(1);
    // The same name is free in another workspace.
    await invite((await createWorkspace("elsewhere")).uid, "viewer", "taken", "taken@example.com");
  });

  it("a role change applies to the user's live session at once", async () => {
    const ws = (await createWorkspace("promote")).uid;
    const viewer = await signIn(ws, "viewer");
    await expectProblem(await asUser(viewer, "GET", `/v1/workspaces/${ws}/users`), 403, "forbidden");
    const patched = await json<User>(
      await call("PATCH", `/v1/workspaces/${ws}/users/${viewer.user.id}`, { body: { role: "admin" } }),
      200,
    );
    expect(patched.role).toBe("admin");
    await json(await asUser(viewer, "GET", `/v1/workspaces/${ws}/users`), 200);
    await expectProblem(
      await call("PATCH", `/v1/workspaces/${ws}/users/${viewer.user.id}`, { body: { role: "root" } }),
      400,
      "invalid_request",
    );
    expect((await usersOf(ws))[0]?.role).toBe("admin");
  });

  it("removing a user ends its sessions and spends its links", async () => {
    const ws = (await createWorkspace("remove")).uid;
    const s = await signIn(ws, "editor");
    const link = await json<{ signIn: { url: string } }>(
      await call("POST", `/v1/workspaces/${ws}/users/${s.user.id}/sign-in-links`),
      201,
    );
    expect((await call("DELETE", `/v1/workspaces/${ws}/users/${s.user.id}`)).status).toBe(204);
    await expectProblem(await asUser(s, "GET", `/v1/workspaces/${ws}`), 401, "unauthorized");
    await expectProblem(await exchange(tokenOf(link.signIn.url)), 401, "sign_in_link_invalid");
    expect(await usersOf(ws)).toEqual([]);
    for (const [method, path, body] of [
      ["DELETE", `/v1/workspaces/${ws}/users/${s.user.id}`, undefined],
      ["PATCH", `/v1/workspaces/${ws}/users/${s.user.id}`, { role: "viewer" }],
      ["POST", `/v1/workspaces/${ws}/users/${s.user.id}/sign-in-links`, undefined],
    ] as const) {
      await expectProblem(await call(method, path, { body }), 404, "not_found");
    }
  });

  it("a new sign-in link signs the user in again; each link works once", async () => {
    const ws = (await createWorkspace("relink")).uid;
    const invited = await invite(ws, "viewer");
    const link = await json<{ signIn: { url: string } }>(
      await call("POST", `/v1/workspaces/${ws}/users/${invited.user.id}/sign-in-links`),
      201,
    );
    await json(await exchange(tokenOf(link.signIn.url)), 200);
    await json(await exchange(tokenOf(invited.signIn.url)), 200);
    await expectProblem(await exchange(tokenOf(link.signIn.url)), 401, "sign_in_link_invalid");
  });

  it("keys need the admin scope; a user of another workspace is refused", async () => {
    const ws = (await createWorkspace("users-keys")).uid;
    const writer = await createKey(ws, ["hooks:read", "hooks:write"]);
    const admin = await createKey(ws, ["admin"]);
    await expectProblem(
      await call("GET", `/v1/workspaces/${ws}/users`, { key: writer.key }),
      403,
      "forbidden",
    );
    await json(await call("GET", `/v1/workspaces/${ws}/users`, { key: admin.key }), 200);
    const outsider = await signIn((await createWorkspace("outside")).uid, "admin");
    await expectProblem(await asUser(outsider, "GET", `/v1/workspaces/${ws}/users`), 403, "forbidden");
  });
});
