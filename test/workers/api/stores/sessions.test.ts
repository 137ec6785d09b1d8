import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../../shared/db/client";
import { findSession, sweepExpired } from "../../../../workers/api/stores/sessions";
import { createUser } from "../../../../workers/api/stores/users";
import { createWorkspace } from "../../../../workers/api/stores/workspaces";

const db = () => database(env.DB);
const iso = (ms: number) => new Date(ms).toISOString();

describe("session store", () => {
  it("finds live sessions only; the sweep removes expired sessions and links and keeps live ones", async () => {
    const ws = await createWorkspace(db(), { uid: `ws_s${crypto.randomUUID()}`, name: "s", createdBy: "t" });
    const created = await createUser(db(), {
      id: `usr_${crypto.randomUUID()}`,
      workspaceUid: ws.uid,
      name: "u",
      email: null,
      role: "viewer",
      createdBy: "t",
    });
    if (!created.ok) throw new Error("not created");
    const now = Date.now();
    const base = { userId: created.value.id, workspaceUid: ws.uid, createdAt: iso(now - 1000) };
    const tag = crypto.randomUUID();
    await env.DB.batch(
      [
        [`old-${tag}`, iso(now - 1)],
        [`live-${tag}`, iso(now + 60_000)],
      ].flatMap(([id, expires]) => [
        env.DB.prepare(
          "insert into sessions (id_hash, user_id, workspace_uid, csrf_token, created_at, expires_at) values (?, ?, ?, 'c', ?, ?)",
        ).bind(id, base.userId, base.workspaceUid, base.createdAt, expires),
        env.DB.prepare(
          "insert into sign_in_links (token_hash, user_id, workspace_uid, created_at, created_by, expires_at) values (?, ?, ?, ?, 't', ?)",
        ).bind(id, base.userId, base.workspaceUid, base.createdAt, expires),
      ]),
    );
    expect(await findSession(db(), `old-${tag}`, iso(now))).toBeUndefined();
    expect((await findSession(db(), `live-${tag}`, iso(now)))?.user.name).toBe("u");
    const swept = await sweepExpired(db(), iso(now));
    expect(swept.sessions).toBeGreaterThanOrEqual(1);
    expect(swept.signInLinks).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare(
      "select (select group_concat(id_hash) from sessions where user_id = ?1) as s, (select group_concat(token_hash) from sign_in_links where user_id = ?1) as l",
    )
      .bind(created.value.id)
      .first();
    expect(left).toEqual({ s: `live-${tag}`, l: `live-${tag}` });
  });
});
