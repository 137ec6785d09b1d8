// The simulated distance to a workspace's home (shared/sim/distance.ts): with SIM_HOME_RTT_MS set,
// each call through the wrapped env that reaches the WorkspaceObject, D1 or R2 waits once, for the
// var's milliseconds, before it happens, and is counted; unset, the env is the env.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { DEFAULT_PROFILE } from "../../../shared/access";
import { database } from "../../../shared/db/client";
import { workspaces } from "../../../shared/db/schema";
import { configAt } from "../../../shared/lease/config";
import { leasedView } from "../../../shared/lease/view";
import {
  countRequest,
  simStats,
  simulatedDistanceCounts,
  withSimulatedDistance,
  type SimulatedDistanceCounts,
} from "../../../shared/sim/distance";
import { gateway } from "../../../workers/gateway/app";
import { workspaceCatalog } from "../../../workers/gateway/caches/catalog-cache";
import { call, createWorkspace, expectProblem, json } from "../../helpers/api";

const RTT = 37;

/** A sleep that records each wait and holds it until the test lets it go. */
function heldSleep() {
  const waits: number[] = [];
  const held: (() => void)[] = [];
  return {
    waits,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        waits.push(ms);
        held.push(resolve);
      }),
    /** Lets every held wait go on. */
    release: () => {
      for (const resolve of held.splice(0)) resolve();
    },
  };
}

/** The env of a Worker started with SIM_HOME_RTT_MS (a new object each time, so nothing is cached). */
const simulated = (ms: string | undefined = String(RTT)) => ({ ...env, SIM_HOME_RTT_MS: ms });

/** Whether `promise` is still pending after its work had every chance to finish. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 30));
  return !settled;
}

/**
 * Runs `operation` through an env whose sleep holds: the operation must have asked for exactly
 * one wait of RTT ms and not have finished (nor, by `notYet`, happened) before the wait ends, and
 * must have counted once in `counter`. Resolves with the operation's result.
 */
async function waitsOnce<T>(
  counter: keyof SimulatedDistanceCounts,
  operation: (far: ReturnType<typeof simulated>) => Promise<T>,
  notYet?: () => Promise<void>,
): Promise<T> {
  const { waits, sleep, release } = heldSleep();
  const far = withSimulatedDistance(simulated(), sleep);
  const before = simulatedDistanceCounts();
  const running = operation(far);
  expect(await pending(running), "finished before its wait ended").toBe(true);
  expect(waits).toEqual([RTT]);
  await notYet?.();
  release();
  const result = await running;
  expect(waits).toEqual([RTT]);
  expect(simulatedDistanceCounts()).toEqual({ ...before, [counter]: before[counter] + 1 });
  return result;
}

describe("withSimulatedDistance", () => {
  it("returns the env itself when SIM_HOME_RTT_MS is unset or empty", () => {
    expect(withSimulatedDistance(env)).toBe(env);
    const empty = simulated("");
    expect(withSimulatedDistance(empty)).toBe(empty);
  });

  it("wraps an env once, and keeps its other bindings and vars", () => {
    const plain = simulated("0");
    const far = withSimulatedDistance(plain);
    expect(far).not.toBe(plain);
    expect(withSimulatedDistance(plain)).toBe(far);
    expect(far.RAYRUN_BOOTSTRAP_KEY).toBe(env.RAYRUN_BOOTSTRAP_KEY);
    expect(far.LOG_BATCH_MS).toBe(env.LOG_BATCH_MS);
    expect(far.GATEWAY).toBe(env.GATEWAY);
  });

  it("refuses a value that is not a number of milliseconds", () => {
    expect(() => withSimulatedDistance(simulated("fast"))).toThrow(/SIM_HOME_RTT_MS/);
    expect(() => withSimulatedDistance(simulated("-5"))).toThrow(/SIM_HOME_RTT_MS/);
  });

  it('waits with 0 ms too: "0" turns the simulation on', async () => {
    const { waits, sleep, release } = heldSleep();
    const far = withSimulatedDistance(simulated("0"), sleep);
    const running = far.DB.prepare("select 1 as one").first<{ one: number }>();
    expect(waits).toEqual([0]);
    release();
    expect(await running).toEqual({ one: 1 });
  });
});

describe("D1 through the wrapped env", () => {
  it("waits before a drizzle insert and a drizzle select", async () => {
    const uid = `ws_${crypto.randomUUID()}`;
    const exists = async () =>
      (await env.DB.prepare("select uid from workspaces where uid = ?").bind(uid).first()) !== null;
    await waitsOnce(
      "d1Queries",
      async (far) => {
        await database(far.DB).insert(workspaces).values({ uid, name: "far", createdBy: "tester" });
      },
      async () => expect(await exists(), "inserted before the wait ended").toBe(false),
    );
    expect(await exists()).toBe(true);
    const row = await waitsOnce("d1Queries", (far) =>
      database(far.DB).select().from(workspaces).where(eq(workspaces.uid, uid)).get(),
    );
    expect(row).toMatchObject({ uid, name: "far" });
  });

  it("waits before prepare().bind().first(), all(), run() and raw()", async () => {
    const first = await waitsOnce("d1Queries", (far) =>
      far.DB.prepare("select ? as n").bind(7).first<{ n: number }>(),
    );
    expect(first).toEqual({ n: 7 });
    const all = await waitsOnce("d1Queries", (far) => far.DB.prepare("select 1 as n").all());
    expect(all.results).toEqual([{ n: 1 }]);
    const run = await waitsOnce("d1Queries", (far) => far.DB.prepare("select 1").run());
    expect(run.success).toBe(true);
    const raw = await waitsOnce("d1Queries", (far) => far.DB.prepare("select 1, 2").raw());
    expect(raw).toEqual([[1, 2]]);
  });

  it("sends a batch as one query, of D1's own statements", async () => {
    const results = await waitsOnce("d1Queries", (far) =>
      far.DB.batch<{ n: number }>([far.DB.prepare("select 1 as n"), far.DB.prepare("select ? as n").bind(2)]),
    );
    expect(results.map((r) => r.results)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });

  it("sends a drizzle batch as one query", async () => {
    const uid = `ws_${crypto.randomUUID()}`;
    const [, rows] = await waitsOnce("d1Queries", (far) => {
      const db = database(far.DB);
      return db.batch([
        db.insert(workspaces).values({ uid, name: "batched", createdBy: "tester" }),
        db.select().from(workspaces).where(eq(workspaces.uid, uid)),
      ]);
    });
    expect(rows).toMatchObject([{ uid, name: "batched" }]);
  });

  it("waits before a session's queries", async () => {
    const session = await waitsOnce("d1Queries", (far) =>
      far.DB.withSession("first-primary").prepare("select 3 as n").first<{ n: number }>(),
    );
    expect(session).toEqual({ n: 3 });
  });
});

describe("R2 through the wrapped env", () => {
  it("waits before a put and a get", async () => {
    const key = `sim/${crypto.randomUUID()}`;
    await waitsOnce(
      "r2Ops",
      (far) => far.CODE.put(key, "far away"),
      async () => expect(await env.CODE.head(key), "stored before the wait ended").toBeNull(),
    );
    const object = await waitsOnce("r2Ops", (far) => far.CODE.get(key));
    expect(await object?.text()).toBe("far away");
    await waitsOnce("r2Ops", (far) => far.CODE.delete(key));
    expect(await env.CODE.head(key)).toBeNull();
  });
});

describe("the WorkspaceObject through the wrapped env", () => {
  it("waits before each RPC", async () => {
    const ws = `ws_${crypto.randomUUID()}`;
    const keyId = `key_${crypto.randomUUID()}`;
    await waitsOnce(
      "workspaceRpcs",
      (far) => workspaceObject(far, ws).revokeKey(keyId),
      async () =>
        expect(await workspaceObject(env, ws).isKeyRevoked(keyId), "revoked before the wait ended").toBe(
          false,
        ),
    );
    expect(await workspaceObject(env, ws).isKeyRevoked(keyId)).toBe(true);
    const revoked = await waitsOnce("workspaceRpcs", (far) => workspaceObject(far, ws).isKeyRevoked(keyId));
    expect(revoked).toBe(true);
  });

  it("hands out stubs that are not thenable, so async code can return them", async () => {
    const far = withSimulatedDistance(simulated("0"));
    const stub = await Promise.resolve(workspaceObject(far, `ws_${crypto.randomUUID()}`));
    expect(typeof (await stub.catalogVersion())).toBe("number");
  });
});

describe("GET /__sim/stats", () => {
  it("is the 404 any unknown path gets while SIM_HOME_RTT_MS is unset, on both Workers", async () => {
    await expectProblem(await call("GET", "/__sim/stats"), 404, "not_found");
    await expectProblem(await call("POST", "/__sim/stats"), 404, "not_found");
    const res = await gateway.request("/__sim/stats", {}, env);
    await expectProblem(res, 404, "not_found");
  });

  it("answers the isolate's counters while it is set", async () => {
    const far = simulated("0");
    const before = simulatedDistanceCounts();
    const stats = await json(await gateway.request("/__sim/stats", {}, far), 200);
    expect(stats).toMatchObject({ worker: "gateway", colo: 1, ...before });
    expect(stats.isolate).toMatch(/^[0-9a-f-]{36}$/);
    expect(stats.requests).toEqual(expect.any(Number));
    expect(simStats("api", { ...far, SIM_COLO: "3" })).toMatchObject({
      worker: "api",
      colo: 3,
      isolate: stats.isolate,
    });
    expect(simStats("api", env)).toBeNull();
  });

  it("refuses a gateway colo the api Worker has no binding for", async () => {
    for (const colo of ["2", "0", "x"]) {
      const res = await call("GET", "/__sim/stats", { headers: { "x-rayrun-colo": colo } });
      const body = await expectProblem(res, 400, "invalid_request");
      expect(body.detail).toContain("x-rayrun-colo");
    }
    await expectProblem(
      await call("POST", "/mcp/ws_any", { headers: { "x-rayrun-colo": "9" } }),
      400,
      "invalid_request",
    );
  });
});

describe("POST /__sim/forget", () => {
  it("is the 404 any unknown path gets while SIM_HOME_RTT_MS is unset, on both Workers", async () => {
    await expectProblem(await gateway.request("/__sim/forget", { method: "POST" }, env), 404, "not_found");
    await expectProblem(await call("POST", "/__sim/forget"), 404, "not_found");
  });

  it("empties the gateway isolate's caches, so that its next call asks the workspace's home again", async () => {
    const { uid } = await createWorkspace("forget");
    // A write reaches the workspace's object, so its grants are leases an isolate keeps.
    await workspaceObject(env, uid).catalogChanged();
    const { view } = await leasedView(env, uid);
    const config = configAt(env, uid, view.catalog);
    expect(configAt(env, uid, view.catalog)).toBe(config);
    const catalog = () => workspaceCatalog(env, uid, DEFAULT_PROFILE, { version: view.catalog });
    await catalog();
    expect((await catalog()).fresh).toBe(false);
    // The suite's leases last 200 ms (vitest.config.ts): taken right before, this one still holds.
    await leasedView(env, uid);
    expect((await leasedView(env, uid)).fetched).toBe(false);

    const res = await gateway.request("/__sim/forget", { method: "POST" }, simulated("0"));
    const body = await json<{ forgotten: string[] }>(res, 200);
    expect(body.forgotten).toEqual(
      expect.arrayContaining(["leases", "configCopies", "catalogs", "resolvedKeys", "revisions"]),
    );
    expect(body.forgotten).toEqual(expect.arrayContaining(["pluginLists", "upstreamSessions"]));

    expect((await leasedView(env, uid)).fetched).toBe(true);
    expect(configAt(env, uid, view.catalog)).not.toBe(config);
    expect((await catalog()).fresh).toBe(true);
  });

  it("answers only POST", async () => {
    await expectProblem(await gateway.request("/__sim/forget", {}, simulated("0")), 404, "not_found");
  });
});

const rounds = () => simulatedDistanceCounts().rounds;

describe("rounds home", () => {
  it("trips that overlap during a request count as one round, trips one after another as one each, and trips outside any request as none", async () => {
    const { waits, sleep, release } = heldSleep();
    const far = withSimulatedDistance(simulated(), sleep);
    const query = () => far.DB.prepare("select 1").first();
    const start = rounds();

    const answered = countRequest(new Request("http://gateway/mcp/ws_x"), far);
    const together = Promise.all([query(), far.CODE.head("nothing"), query()]);
    expect(waits).toHaveLength(3);
    release();
    await together;
    expect(rounds()).toBe(start + 1);
    const first = query();
    release();
    await first;
    const second = query();
    release();
    await second;
    expect(rounds()).toBe(start + 3);
    answered();

    const outside = query();
    release();
    await outside;
    const stats = countRequest(new Request("http://gateway/__sim/stats"), far);
    const reading = query();
    release();
    await reading;
    stats();
    expect(rounds()).toBe(start + 3);
  });
});
