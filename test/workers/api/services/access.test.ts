import { describe, expect, it } from "vitest";
import { createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";
import { byName, call, createService, newUpstream, refresh, snapshot } from "./harness";

type Route = {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
  scope: "hooks:read" | "hooks:write";
};

/** A workspace with an indexed service whose `echo` awaits review, and every route of this feature on it. */
async function fixture() {
  const ws = (await createWorkspace()).uid;
  const upstream = newUpstream();
  const service = await createService(ws, { name: "docs", url: upstream.url });
  const echo = byName((await refresh(ws, service.uid)).tools).echo?.uid;
  await upstream.variant("v2");
  await refresh(ws, service.uid);
  const base = `/v1/workspaces/${ws}`;
  const routes: Route[] = [
    {
      method: "POST",
      path: `${base}/services`,
      body: { name: "other", url: upstream.url },
      scope: "hooks:write",
    },
    { method: "GET", path: `${base}/services`, scope: "hooks:read" },
    { method: "GET", path: `${base}/services/${service.uid}`, scope: "hooks:read" },
    { method: "POST", path: `${base}/services/${service.uid}/refresh`, scope: "hooks:write" },
    { method: "GET", path: `${base}/services/${service.uid}/history`, scope: "hooks:read" },
    { method: "GET", path: `${base}/tools`, scope: "hooks:read" },
    { method: "GET", path: `${base}/tools/${echo}`, scope: "hooks:read" },
    { method: "POST", path: `${base}/tools/${echo}/review/accept`, scope: "hooks:write" },
    { method: "DELETE", path: `${base}/services/${service.uid}`, scope: "hooks:write" },
  ];
  return { ws, upstream, routes };
}

describe("access to services and tools", () => {
  it("a key of another workspace is refused with 403 on every route, even with admin", async () => {
    const { ws, routes } = await fixture();
    const other = (await createWorkspace()).uid;
    const { key } = await createKey(other, ["admin"]);
    const before = await snapshot(ws);
    for (const route of routes) {
      const res = await call(route.method, route.path, { key, body: route.body });
      await expectProblem(res, 403, "forbidden");
    }
    expect(await snapshot(ws)).toBe(before);
  });

  it("a key of another workspace cannot probe unknown ids either", async () => {
    const { ws } = await fixture();
    const { key } = await createKey((await createWorkspace()).uid, ["admin"]);
    const statuses: number[] = [];
    for (const path of [`/services/svc_missing`, `/tools/tool_missing`, `/services/svc_missing/history`]) {
      statuses.push((await call("GET", `/v1/workspaces/${ws}${path}`, { key })).status);
    }
    expect(statuses).toEqual([403, 403, 403]);
  });

  it("each route needs its scope: hooks:read reads, hooks:write writes (and reads)", async () => {
    const { ws, routes } = await fixture();
    const reader = (await createKey(ws, ["hooks:read"])).key;
    const writer = (await createKey(ws, ["hooks:write"])).key;
    const caller = (await createKey(ws, ["tools:call"])).key;
    const before = await snapshot(ws);
    for (const route of routes) {
      const refused = route.scope === "hooks:read" ? [caller] : [reader, caller];
      // hooks:write includes hooks:read; a write route refuses a reader.
      const allowed = route.scope === "hooks:read" ? writer : null;
      const allowedStatus =
        allowed === null ? 0 : (await call(route.method, route.path, { key: allowed })).status;
      expect(allowedStatus, route.path).not.toBe(403);
      for (const key of refused) {
        await expectProblem(
          await call(route.method, route.path, { key, body: route.body }),
          403,
          "forbidden",
        );
      }
      await expectProblem(
        await call(route.method, route.path, { key: null, body: route.body }),
        401,
        "unauthorized",
      );
    }
    expect(await snapshot(ws)).toBe(before);

    // And with the scope (in route order: the delete comes last) every route answers.
    for (const route of routes) {
      const key = route.scope === "hooks:read" ? reader : writer;
      const res = await call(route.method, route.path, { key, body: route.body });
      expect(res.status, `${route.method} ${route.path}: ${await res.clone().text()}`).toBeLessThan(300);
    }
  });

  it("a workspace admin key may do everything inside its workspace; writes are attributed to its actor", async () => {
    const ws = (await createWorkspace()).uid;
    const { key } = await createKey(ws, ["admin"], "alice");
    const service = await createService(ws, { name: "docs", url: newUpstream().url }, key);
    expect(service.createdBy).toBe("alice");
    await refresh(ws, service.uid, key);
    const deleted = await json(
      await call("DELETE", `/v1/workspaces/${ws}/services/${service.uid}`, { key }),
      200,
    );
    expect(deleted.deletedBy).toBe("alice");
  });
});
