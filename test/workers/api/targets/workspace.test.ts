import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../../shared/db/client";
import { ProblemException } from "../../../../shared/http/problem";
import { createService } from "../../../../workers/api/stores/services";
import { createWorkspace } from "../../../../workers/api/stores/workspaces";
import {
  isDeleted,
  isVersionNumber,
  refuseDeleted,
  requireService,
  requireTool,
  requireWorkspace,
} from "../../../../workers/api/targets";

const db = () => database(env.DB);

async function problemOf(run: () => unknown): Promise<ProblemException["problem"]> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ProblemException) return error.problem;
    throw error;
  }
  throw new Error("expected a problem");
}

async function workspaceWithService() {
  const ws = await createWorkspace(db(), { uid: `ws_t${crypto.randomUUID()}`, name: "t", createdBy: "test" });
  const service = await createService(db(), {
    uid: `svc_t${crypto.randomUUID()}`,
    workspaceUid: ws.uid,
    name: "svc",
    url: "https://upstream.test/mcp",
    createdBy: "test",
  });
  if (!service) throw new Error("service not created");
  return { ws, service };
}

describe("workspace resolution", () => {
  it("answers the workspace row, or 404 workspace_not_found", async () => {
    const { ws } = await workspaceWithService();
    expect(await requireWorkspace(db(), ws.uid)).toMatchObject({ uid: ws.uid, name: "t" });
    expect(await problemOf(() => requireWorkspace(db(), "ws_missing"))).toMatchObject({
      code: "workspace_not_found",
    });
  });

  it("requires the service and the tool to belong to the workspace", async () => {
    const { ws, service } = await workspaceWithService();
    expect((await requireService(db(), ws.uid, service.uid)).uid).toBe(service.uid);
    expect(await problemOf(() => requireService(db(), ws.uid, "svc_missing"))).toMatchObject({
      code: "not_found",
    });
    const other = await workspaceWithService();
    expect(await problemOf(() => requireService(db(), other.ws.uid, service.uid))).toMatchObject({
      code: "not_found",
    });
    expect(await problemOf(() => requireTool(db(), ws.uid, "tool_missing"))).toMatchObject({
      code: "not_found",
    });
  });

  it("lets a deleted or legacy service take no writes", async () => {
    const { service } = await workspaceWithService();
    expect(isDeleted(service)).toBe(false);
    expect(() => refuseDeleted(service, "be changed")).not.toThrow();
    const deleted = { ...service, deletedAt: new Date().toISOString() };
    expect(isDeleted(deleted)).toBe(true);
    expect(await problemOf(() => refuseDeleted(deleted, "be changed"))).toMatchObject({
      code: "conflict",
      extensions: { service: service.uid, legacy: false },
    });
    expect(isDeleted({ ...service, legacy: true })).toBe(true);
  });

  it("reads version numbers as paths and cursors carry them", () => {
    expect(["1", "42", "999999999"].every(isVersionNumber)).toBe(true);
    expect(["0", "01", "-1", "1.5", "", "1000000000"].some(isVersionNumber)).toBe(false);
  });
});
