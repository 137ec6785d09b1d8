import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";

describe("workspaces", () => {
  it("the bootstrap key creates a workspace attributed to it", async () => {
    const ws = await createWorkspace("acme");
    expect(ws).toMatchObject({ name: "acme", createdBy: "bootstrap" });
    expect(ws.uid).toMatch(/^ws_/);
  });

  it("a workspace key cannot create workspaces, even with admin", async () => {
    const ws = await createWorkspace();
    const { key } = await createKey(ws.uid, ["admin"]);
    await expectProblem(await call("POST", "/v1/workspaces", { key, body: { name: "x" } }), 403, "forbidden");
  });

  it("an unknown workspace is 404 for the platform key", async () => {
    await expectProblem(await call("GET", "/v1/workspaces/ws_missing"), 404, "workspace_not_found");
  });
});

describe("API keys", () => {
  it("a minted key is shown once, stored only as a hash, and authenticates", async () => {
    const ws = await createWorkspace();
    const minted = await createKey(ws.uid, ["hooks:read"], "alice");
    expect(minted.key).toMatch(/^rr_/);
    const stored = await env.DB.prepare("select * from api_keys where id = ?").bind(minted.id).first();
    expect(JSON.stringify(stored)).not.toContain(minted.key);
    const listed = await json<{ items: Record<string, unknown>[] }>(
      await call("GET", `/v1/workspaces/${ws.uid}/keys`),
      200,
    );
    expect(listed.items).toEqual([expect.not.objectContaining({ key: expect.anything() })]);
    await json(await call("GET", `/v1/workspaces/${ws.uid}`, { key: minted.key }), 200);
  });

  it("a key of one workspace never reads another workspace", async () => {
    const a = await createWorkspace("a");
    const b = await createWorkspace("b");
    const { key } = await createKey(a.uid, ["admin"]);
    await expectProblem(await call("GET", `/v1/workspaces/${b.uid}`, { key }), 403, "forbidden");
    await expectProblem(
      await call("POST", `/v1/workspaces/${b.uid}/keys`, { key, body: { scopes: ["admin"], actor: "x" } }),
      403,
      "forbidden",
    );
  });

  it("a key without the route's scope is refused with 403", async () => {
    const ws = await createWorkspace();
    const { key } = await createKey(ws.uid, ["hooks:read"]);
    await expectProblem(await call("GET", `/v1/workspaces/${ws.uid}/keys`, { key }), 403, "forbidden");
  });

  it("a revoked key is refused on its next request", async () => {
    const ws = await createWorkspace();
    const { id, key } = await createKey(ws.uid, ["hooks:read"]);
    await json(await call("GET", `/v1/workspaces/${ws.uid}`, { key }), 200);
    const revoked = await json(await call("DELETE", `/v1/workspaces/${ws.uid}/keys/${id}`), 200);
    expect(revoked.revokedAt).toEqual(expect.any(String));
    await expectProblem(await call("GET", `/v1/workspaces/${ws.uid}`, { key }), 401, "unauthorized");
  });

  it("bad key requests are refused and store nothing", async () => {
    const ws = await createWorkspace();
    const keyCount = () =>
      env.DB.prepare("select count(*) as n from api_keys where workspace_uid = ?1")
        .bind(ws.uid)
        .first<{ n: number }>();
    const before = await keyCount();
    for (const body of [
      { scopes: [], actor: "x" },
      { scopes: ["root"], actor: "x" },
      { scopes: ["admin"] },
    ]) {
      await expectProblem(
        await call("POST", `/v1/workspaces/${ws.uid}/keys`, { body }),
        400,
        "invalid_request",
      );
    }
    const after = await keyCount();
    expect(after?.n).toBe(before?.n);
  });

  it("key lists page with limit and cursor", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 3; i++) await createKey(ws.uid, ["hooks:read"], `k${i}`);
    const first = await json<{ items: { actor: string }[]; nextCursor: string }>(
      await call("GET", `/v1/workspaces/${ws.uid}/keys?limit=2`),
      200,
    );
    expect(first.items).toHaveLength(2);
    const second = await json<{ items: { actor: string }[]; nextCursor: string | null }>(
      await call("GET", `/v1/workspaces/${ws.uid}/keys?limit=2&cursor=${first.nextCursor}`),
      200,
    );
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((k) => k.actor).toSorted()).toEqual(["k0", "k1", "k2"]);
  });

  it("each key carries a display hint, its start and last four characters, never the secret", async () => {
    const ws = await createWorkspace();
    const created = await json<{ id: string; key: string; displayHint: string }>(
      await call("POST", `/v1/workspaces/${ws.uid}/keys`, {
        body: { scopes: ["hooks:read"], actor: "hinted" },
      }),
      201,
    );
    const hint = `rr_…${created.key.slice(-4)}`;
    expect(created.displayHint).toBe(hint);
    const listed = await json<{ items: { id: string; displayHint: string | null }[] }>(
      await call("GET", `/v1/workspaces/${ws.uid}/keys`),
      200,
    );
    expect(listed.items).toEqual([expect.objectContaining({ id: created.id, displayHint: hint })]);
    const revoked = await json<{ displayHint: string | null }>(
      await call("DELETE", `/v1/workspaces/${ws.uid}/keys/${created.id}`),
      200,
    );
    expect(revoked.displayHint).toBe(hint);
    // Only the hint is stored beside the hash.
    const row = await env.DB.prepare("select display_hint from api_keys where id = ?")
      .bind(created.id)
      .first<{ display_hint: string }>();
    expect(row?.display_hint).toBe(hint);
  });

  it("a key minted before hints were stored lists with displayHint null", async () => {
    const ws = await createWorkspace();
    await env.DB.prepare(
      "insert into api_keys (id, workspace_uid, secret_hash, scopes, actor) values (?, ?, ?, '[\"hooks:read\"]', 'old')",
    )
      .bind(`key_old${crypto.randomUUID()}`, ws.uid, `hash-${crypto.randomUUID()}`)
      .run();
    const listed = await json<{ items: { actor: string; displayHint: string | null }[] }>(
      await call("GET", `/v1/workspaces/${ws.uid}/keys`),
      200,
    );
    expect(listed.items).toEqual([expect.objectContaining({ actor: "old", displayHint: null })]);
  });
});
