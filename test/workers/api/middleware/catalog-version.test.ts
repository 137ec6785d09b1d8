// The catalog version bumps after every write to what the gateway caches about
// a workspace's tools, and only then.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ProblemException } from "../../../../shared/http/problem";
import { catalogVersion } from "../../../../workers/api/middleware/catalog-version";
import { send, testApp } from "./app";

const app = testApp();
app.use("/v1/workspaces/*", catalogVersion);
// Each route answers the status its `?status=` names (a ProblemException for 4xx, like real refusals).
app.all("/v1/workspaces/:ws/*", (c) => {
  const status = Number(c.req.query("status") ?? "200");
  if (status === 409) throw new ProblemException({ code: "conflict" });
  if (status === 404) throw new ProblemException({ code: "not_found" });
  if (status === 500) throw new Error("partly written");
  return c.json({ ws: c.req.param("ws") }, status === 201 ? 201 : 200);
});

const version = (ws: string) => env.WORKSPACE.getByName(ws).catalogVersion();
const newWs = () => `ws_${crypto.randomUUID()}`;

/** How much `method path` moved the workspace's catalog version. */
async function bump(ws: string, method: string, rest: string, status = 200): Promise<number> {
  const start = await version(ws);
  const res = await send(app, `/v1/workspaces/${ws}/${rest}?status=${status}`, { method });
  expect(res.status).toBe(status);
  return (await version(ws)) - start;
}

describe("catalogVersion", () => {
  it("a successful write to services, tools, access profiles, secrets or config bumps it once", async () => {
    const ws = newWs();
    for (const [method, rest] of [
      ["POST", "services"],
      ["DELETE", "services/svc_1"],
      ["POST", "tools/tool_1/review"],
      ["PUT", "tools/tool_1/settings"],
      ["PUT", "access-profiles/default"],
      ["PUT", "secrets/TOKEN"],
      ["PATCH", "config"],
    ] as const) {
      expect(await bump(ws, method, rest, method === "POST" ? 201 : 200), `${method} ${rest}`).toBe(1);
    }
  });

  it("reads never bump it", async () => {
    const ws = newWs();
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(await bump(ws, method, "services"), method).toBe(0);
  });

  it("writes to a tool's hook, and to other families, do not bump it", async () => {
    const ws = newWs();
    expect(await bump(ws, "PUT", "tools/tool_1/hook/draft")).toBe(0);
    expect(await bump(ws, "POST", "tools/tool_1/hook/deployments")).toBe(0);
    expect(await bump(ws, "POST", "files/lib%2Fx.ts/deployments")).toBe(0);
    expect(await bump(ws, "POST", "approvals/apr_1/approve")).toBe(0);
    expect(await bump(ws, "POST", "keys")).toBe(0);
  });

  it("a refused write (4xx) does not bump it; a failed one (5xx) may have written, so it does", async () => {
    const ws = newWs();
    expect(await bump(ws, "POST", "services", 409)).toBe(0);
    expect(await bump(ws, "DELETE", "secrets/NOPE", 404)).toBe(0);
    expect(await bump(ws, "PUT", "config", 500)).toBe(1);
  });

  it("bumps the workspace the route names, percent-decoded", async () => {
    const ws = `ws ${crypto.randomUUID()}`;
    const res = await send(app, `/v1/workspaces/${encodeURIComponent(ws)}/services`, { method: "POST" });
    expect(await res.json()).toEqual({ ws });
    expect(await version(ws)).toBe(1);
  });

  it("a malformed workspace in the path bumps nothing and fails nothing", async () => {
    const res = await send(app, "/v1/workspaces/%E0%A4%A/services", { method: "POST" });
    expect(res.status).toBeLessThan(500);
  });
});
