import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../../shared/db/client";
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from "../../../../workers/api/stores/api-keys";
import { createWorkspace } from "../../../../workers/api/stores/workspaces";

const db = () => database(env.DB);

describe("api key store", () => {
  it("stores keys with their profile, pages them newest first and revokes once", async () => {
    const ws = await createWorkspace(db(), {
      uid: `ws_k${crypto.randomUUID()}`,
      name: "k",
      createdBy: "test",
    });
    const key = (id: string) => ({
      id: `${id}${ws.uid}`,
      workspaceUid: ws.uid,
      secretHash: `hash-${id}${ws.uid}`,
      scopes: ["hooks:read"],
      actor: "t",
    });
    await createApiKey(db(), key("key_1"), null);
    await createApiKey(db(), key("key_2"), "readers");
    const profile = await env.DB.prepare("SELECT profile FROM api_key_profiles WHERE key_id = ?")
      .bind(`key_2${ws.uid}`)
      .first<{ profile: string }>();
    expect(profile?.profile).toBe("readers");

    expect((await listApiKeys(db(), ws.uid, { limit: 1 })).map((k) => k.id)).toEqual([`key_2${ws.uid}`]);
    expect((await listApiKeys(db(), ws.uid, { after: `key_2${ws.uid}`, limit: 5 })).map((k) => k.id)).toEqual(
      [`key_1${ws.uid}`],
    );

    expect(await revokeApiKey(db(), ws.uid, `key_1${ws.uid}`, "2031-01-01T00:00:00Z")).toMatchObject({
      revokedAt: "2031-01-01T00:00:00Z",
    });
    expect(await revokeApiKey(db(), ws.uid, `key_1${ws.uid}`, "2031-01-02T00:00:00Z")).toBeUndefined();
    expect(await findApiKey(db(), ws.uid, `key_1${ws.uid}`)).toMatchObject({
      revokedAt: "2031-01-01T00:00:00Z",
    });
    expect(await findApiKey(db(), "ws_other", `key_1${ws.uid}`)).toBeUndefined();
  });
});
