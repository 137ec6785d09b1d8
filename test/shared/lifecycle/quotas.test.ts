import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkspaceObject } from "../../../durable-objects/workspace/object";
import { LIMITS } from "../../../shared/limits";
import { expectProblem, json } from "../../helpers/api";
import { call, fixture, save, saveOk, versionRows, workspaceStub } from "../../workers/api/lifecycle/harness";

/** Pins the WorkspaceObject's clock. */
async function setClock(ws: string, at: number) {
  await runInDurableObject(workspaceStub(ws), (instance: WorkspaceObject) => {
    instance.clock = () => at;
  });
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2031, 4, 6, 10, 0, 0);

describe("draft save quota", () => {
  it("the 120th save in an hour passes, the 121st is refused with 429 and Retry-After, and the next hour resets it", async () => {
    const f = await fixture();
    await setClock(f.ws, T0 + 15 * 60_000);
    let etag = '"g0.v0"';
    for (let i = 1; i <= LIMITS.draftSavesPerHour - 1; i++) {
      etag = (await saveOk(f, etag, { source: `export const n = ${i};` })).etag;
    }
    // Restoring counts as a save: the 120th is a restore.
    const restored = await json<{ version: number }>(
      await call("POST", `${f.hook}/versions/1/restore`, { key: f.key, headers: { "if-match": etag } }),
      200,
    );
    expect(restored.version).toBe(LIMITS.draftSavesPerHour);
    etag = `"g0.v${LIMITS.draftSavesPerHour}"`;

    const refused = await save(f, { source: "export const n = 121;" }, { etag });
    expect(refused.headers.get("retry-after")).toBe(String(45 * 60));
    const problem = await expectProblem(refused, 429, "rate_limited");
    expect(problem).toMatchObject({
      quota: "draftSaves",
      limit: LIMITS.draftSavesPerHour,
      used: LIMITS.draftSavesPerHour,
      resetAt: new Date(T0 + HOUR).toISOString(),
      retryAfterSeconds: 45 * 60,
    });
    expect(await versionRows(f.ws)).toHaveLength(LIMITS.draftSavesPerHour);
    // An identical save spends nothing, so it still answers while the quota is exhausted.
    expect(await saveOk(f, etag, { source: "export const n = 1;" })).toMatchObject({ noop: true });

    await setClock(f.ws, T0 + HOUR);
    const next = await saveOk(f, etag, { source: "export const n = 121;" });
    expect(next.version).toBe(LIMITS.draftSavesPerHour + 1);
    expect(next.draft.updatedAt).toBe(new Date(T0 + HOUR).toISOString());
  });
});

/** Stands for history the workspace already holds: one stored version of another tool with `bytes` bytes. */
async function existingHistory(ws: string, bytes: number) {
  await env.DB.prepare(
    `insert into hook_versions (id, workspace_uid, target, generation, number, source, config, formatted, bytes,
       content_hash, actor, key_id, channel, created_at)
     values (?, ?, 'tool:filler', 0, 1, '', '{}', 0, ?, 'x', 'seed', 'seed', 'api', '2031-01-01T00:00:00.000Z')`,
  )
    .bind(crypto.randomUUID(), ws, bytes)
    .run();
}

describe("draft history allowance", () => {
  const SOURCE = "export const a = 1;\n";
  const size = SOURCE.length + "{}".length;

  it("a save that fills the history allowance exactly passes; one byte more is refused with allowance_exceeded", async () => {
    const f = await fixture();
    await existingHistory(f.ws, LIMITS.draftHistoryBytesPerWorkspace - size);
    const saved = await saveOk(f, '"g0.v0"', { source: SOURCE });
    expect(saved.version).toBe(1);
    const usage = await workspaceStub(f.ws).getUsage(f.ws, Date.now());
    expect(usage.draftHistoryBytes).toEqual({
      used: LIMITS.draftHistoryBytesPerWorkspace,
      limit: LIMITS.draftHistoryBytesPerWorkspace,
    });
    const full = await expectProblem(
      await save(f, { source: "export const b = 2;" }, { etag: saved.etag }),
      413,
      "allowance_exceeded",
    );
    expect(full).toMatchObject({
      allowance: "draftHistoryBytes",
      limit: LIMITS.draftHistoryBytesPerWorkspace,
    });

    const g = await fixture();
    await existingHistory(g.ws, LIMITS.draftHistoryBytesPerWorkspace - size + 1);
    const over = await expectProblem(
      await save(g, { source: SOURCE }, { etag: '"g0.v0"' }),
      413,
      "allowance_exceeded",
    );
    expect(over).toMatchObject({
      allowance: "draftHistoryBytes",
      used: LIMITS.draftHistoryBytesPerWorkspace - size + 1,
      requested: size,
    });
    expect((await versionRows(g.ws)).filter((r) => r.target !== "tool:filler")).toEqual([]);
    expect((await workspaceStub(g.ws).getUsage(g.ws, Date.now())).draftSaves.used).toBe(0);
  });
});
