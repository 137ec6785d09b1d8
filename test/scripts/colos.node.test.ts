// Gateway colos (scripts/dev-server.mjs with `colos`): one wrangler dev runs the gateway as
// separately named Workers, each its own isolate, all reached through the api Worker's port with
// the x-rayrun-colo header; SIM_HOME_RTT_MS=0 turns the simulation on without slowing anything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimServer, type SimServer } from "./sim-run.mjs";

interface Stats {
  worker: string;
  colo: number;
  isolate: string;
  requests: number;
  workspaceRpcs: number;
  d1Queries: number;
  r2Ops: number;
}

const COLOS = [1, 2, 3] as const;

let server: SimServer;
beforeAll(async () => {
  server = await startSimServer({ simHomeRttMs: 0, colos: COLOS.length });
}, 240_000);
afterAll(() => server?.stop());

async function stats(colo?: number): Promise<Stats> {
  const headers: Record<string, string> = colo === undefined ? {} : { "x-rayrun-colo": String(colo) };
  const res = await fetch(`${server.url}/__sim/stats`, { headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<Stats>();
}

describe("gateway colos under one wrangler dev", () => {
  it("are separate isolates, each counting only the requests it served", async () => {
    const first = await Promise.all(COLOS.map((colo) => stats(colo)));
    expect(first.map((s) => [s.worker, s.colo])).toEqual(COLOS.map((colo) => ["gateway", colo]));
    const api = await stats();
    expect(api.worker).toBe("api");
    expect(new Set([api, ...first].map((s) => s.isolate)).size).toBe(COLOS.length + 1);

    // Colo n gets n more requests; each must count its own and no other's.
    for (const colo of COLOS) for (let i = 0; i < colo; i++) await stats(colo);
    const after = await Promise.all(COLOS.map((colo) => stats(colo)));
    for (const [i, colo] of COLOS.entries()) {
      expect(after[i]?.isolate).toBe(first[i]?.isolate);
      expect(after[i]?.requests, `colo ${colo}`).toBe((first[i]?.requests ?? 0) + colo + 1);
    }
  });

  it("hand /mcp to the colo the header names, which alone queries D1 for the key", async () => {
    const before = await Promise.all(COLOS.map((colo) => stats(colo)));
    const res = await fetch(`${server.url}/mcp/ws_nowhere`, {
      method: "POST",
      headers: {
        "x-rayrun-colo": "2",
        authorization: "Bearer rr_unknown",
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(res.status).toBe(401);
    const after = await Promise.all(COLOS.map((colo) => stats(colo)));
    expect(after.map((s, i) => s.d1Queries - (before[i]?.d1Queries ?? 0))).toEqual([0, 1, 0]);
  });

  it("refuses a colo it does not run with 400", async () => {
    const res = await fetch(`${server.url}/__sim/stats`, { headers: { "x-rayrun-colo": "4" } });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
  });
});
