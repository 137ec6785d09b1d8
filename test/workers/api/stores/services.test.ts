import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../../shared/db/client";
import {
  createService,
  listServices,
  markServiceDeleted,
  updateServiceSettings,
} from "../../../../workers/api/stores/services";
import { createWorkspace } from "../../../../workers/api/stores/workspaces";

const db = () => database(env.DB);

async function workspace() {
  return createWorkspace(db(), { uid: `ws_s${crypto.randomUUID()}`, name: "s", createdBy: "test" });
}

const service = (workspaceUid: string, uid: string, name: string) => ({
  uid,
  workspaceUid,
  name,
  url: "https://upstream.test/mcp",
  createdBy: "test",
});

describe("service store", () => {
  it("creates a service, and answers null for a name the workspace already has", async () => {
    const ws = await workspace();
    expect(await createService(db(), service(ws.uid, "svc_a", "one"))).toMatchObject({ name: "one" });
    expect(await createService(db(), service(ws.uid, "svc_b", "one"))).toBeNull();
  });

  it("pages live services newest first, and deleted ones apart", async () => {
    const ws = await workspace();
    for (const [uid, name] of [
      ["svc_1", "a"],
      ["svc_2", "b"],
      ["svc_3", "c"],
    ] as const) {
      await createService(db(), service(ws.uid, `${uid}${ws.uid}`, name));
    }
    const first = await listServices(db(), ws.uid, { deleted: false, limit: 2 });
    expect(first.map((s) => s.name)).toEqual(["c", "b"]);
    const rest = await listServices(db(), ws.uid, { deleted: false, after: first[1]?.uid, limit: 2 });
    expect(rest.map((s) => s.name)).toEqual(["a"]);

    const deleted = await markServiceDeleted(db(), ws.uid, `svc_2${ws.uid}`, {
      actor: "t",
      at: "2031-01-01T00:00:00Z",
    });
    expect(deleted).toMatchObject({ deletedBy: "t", deletedAt: "2031-01-01T00:00:00Z" });
    expect((await listServices(db(), ws.uid, { deleted: false, limit: 10 })).map((s) => s.name)).toEqual([
      "c",
      "a",
    ]);
    expect((await listServices(db(), ws.uid, { deleted: true, limit: 10 })).map((s) => s.name)).toEqual([
      "b",
    ]);
    // Deleting again, or changing a deleted service, finds nothing to write.
    expect(
      await markServiceDeleted(db(), ws.uid, `svc_2${ws.uid}`, { actor: "t", at: "2031-01-02T00:00:00Z" }),
    ).toBeUndefined();
    expect(await updateServiceSettings(db(), `svc_2${ws.uid}`, { payloadCapture: true })).toBeUndefined();
    expect(await updateServiceSettings(db(), `svc_1${ws.uid}`, { timeoutMs: 5000 })).toMatchObject({
      timeoutMs: 5000,
    });
  });
});
