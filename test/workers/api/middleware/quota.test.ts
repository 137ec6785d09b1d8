// Compilation quota: counted per API key and hour in the caller's workspace
// object; the refusal is a 429 with Retry-After.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { HOUR_MS, type QuotaRefusal } from "../../../../shared/lifecycle/quota";
import { problemResponse } from "../../../../shared/http/problem";
import type { WorkspaceObject } from "../../../../durable-objects/workspace/object";
import { chargeCompilation, quotaProblem } from "../../../../workers/api/middleware/quota";
import { expectProblem, send, testApp } from "./app";

describe("quotaProblem", () => {
  const refusal: QuotaRefusal = {
    quota: "compilations",
    limit: 120,
    used: 120,
    resetAt: "2031-05-06T11:00:00.000Z",
    retryAfterSeconds: 42,
  };

  it("is a 429 rate_limited with Retry-After and the refusal's numbers", async () => {
    const problem = quotaProblem(refusal, "compilations per API key");
    const res = problemResponse(problem.problem);
    expect(res.headers.get("retry-after")).toBe("42");
    const body = await expectProblem(res, 429, "rate_limited");
    expect(body).toMatchObject({ quota: "compilations", limit: 120, used: 120, resetAt: refusal.resetAt });
    expect(body.detail).toContain("120 compilations per API key");
    expect(body.detail).toContain(refusal.resetAt);
  });
});

const T0 = Date.UTC(2031, 4, 6, 10, 30, 0);

/** An app whose caller is a workspace key (principal set as requireScope would). */
const appFor = (workspaceUid: string, keyId: string) =>
  testApp().post(
    "/compile",
    async (c, next) => {
      c.set("principal", { kind: "key", actor: "alice", keyId, workspaceUid, scopes: ["hooks:write"] });
      await next();
    },
    async (c) => {
      await chargeCompilation(c);
      return c.json({ charged: true });
    },
  );

/** The workspace's object, its clock fixed at `at` and `used` compilations already counted for `keyId`. */
async function objectAt(ws: string, at: number, keyId: string, used: number) {
  await runInDurableObject(env.WORKSPACE.getByName(ws), (instance: WorkspaceObject) => {
    instance.clock = () => at;
    for (let i = 0; i < used; i++) expect(instance.chargeCompilation(keyId, at).ok).toBe(true);
  });
}

describe("chargeCompilation", () => {
  it("the last compilation of the hour passes; the next is a 429 with Retry-After until the hour ends", async () => {
    const ws = `ws_${crypto.randomUUID()}`;
    await objectAt(ws, T0, "key_a", LIMITS.compilationsPerHour - 1);
    const app = appFor(ws, "key_a");
    expect((await send(app, "/compile", { method: "POST" })).status).toBe(200);
    const res = await send(app, "/compile", { method: "POST" });
    const body = await expectProblem(res, 429, "rate_limited");
    expect(body).toMatchObject({ limit: LIMITS.compilationsPerHour, used: LIMITS.compilationsPerHour });
    const resetAt = Math.floor(T0 / HOUR_MS) * HOUR_MS + HOUR_MS;
    expect(body.resetAt).toBe(new Date(resetAt).toISOString());
    expect(res.headers.get("retry-after")).toBe(String((resetAt - T0) / 1000));
  });

  it("counts per key: another key of the same workspace is not refused", async () => {
    const ws = `ws_${crypto.randomUUID()}`;
    await objectAt(ws, T0, "key_a", LIMITS.compilationsPerHour);
    await expectProblem(await send(appFor(ws, "key_a"), "/compile", { method: "POST" }), 429, "rate_limited");
    expect((await send(appFor(ws, "key_b"), "/compile", { method: "POST" })).status).toBe(200);
  });

  it("counts in the caller's own workspace: the same key id elsewhere is not refused", async () => {
    const full = `ws_${crypto.randomUUID()}`;
    const other = `ws_${crypto.randomUUID()}`;
    await objectAt(full, T0, "key_a", LIMITS.compilationsPerHour);
    await objectAt(other, T0, "key_a", 0);
    expect((await send(appFor(other, "key_a"), "/compile", { method: "POST" })).status).toBe(200);
  });

  it("a new hour starts a new window", async () => {
    const ws = `ws_${crypto.randomUUID()}`;
    await objectAt(ws, T0, "key_a", LIMITS.compilationsPerHour);
    await objectAt(ws, T0 + HOUR_MS, "key_a", 0);
    expect((await send(appFor(ws, "key_a"), "/compile", { method: "POST" })).status).toBe(200);
  });
});
