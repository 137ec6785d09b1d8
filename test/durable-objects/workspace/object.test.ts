import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { WorkspaceObject } from "../../../durable-objects/workspace/object";
import { database } from "../../../shared/db/client";
import { err } from "../../../shared/result";
import { prepareDraft } from "../../../workers/api/lifecycle/draft";
import { toolTarget } from "../../../shared/lifecycle/target";
import { deleteTargetVersions, recordResetEvent } from "../../../workers/api/lifecycle/versions";
import { LIMITS } from "../../../shared/limits";
import { createWorkspace, expectProblem, json } from "../../helpers/api";
import {
  call,
  fixture,
  getHook,
  save,
  saveOk,
  versionRows,
  workspaceStub,
} from "../../workers/api/lifecycle/harness";

const HOUR = 3_600_000;
const T0 = Date.UTC(2031, 4, 6, 10, 0, 0);
const MiB = 1024 * 1024;

/** Makes the object fail right after the D1 insert, before it updates the head (as if it died there). */
async function crashAfterNextInsert(ws: string) {
  await runInDurableObject(workspaceStub(ws), (instance: WorkspaceObject) => {
    instance.faults.afterVersionInsert = () => {
      instance.faults = {};
      throw new Error("simulated crash between the D1 insert and the head update");
    };
  });
}

describe("WorkspaceObject: D1 is the authority for history", () => {
  it("eviction between the D1 write and the head update loses and duplicates nothing", async () => {
    const f = await fixture();
    const stub = workspaceStub(f.ws);
    let etag = await saveOk(f, '"g0.v0"', { source: "export const v = 1;" }).then((r) => r.etag);
    etag = await saveOk(f, etag, { source: "export const v = 2;" }).then((r) => r.etag);

    await crashAfterNextInsert(f.ws);
    await expectProblem(await save(f, { source: "export const v = 3;" }, { etag }), 500, "internal_error");
    await evictDurableObject(stub);

    // The client never saw version 3 and retries with its old ETag: the restarted
    // object re-read the head from D1, so the retry is stale instead of a duplicate.
    const retry = await expectProblem(
      await save(f, { source: "export const v = 3;" }, { etag }),
      412,
      "precondition_failed",
    );
    expect(retry.etag).toBe('"g0.v3"');
    const { body } = await getHook(f);
    expect(body.draft).toMatchObject({ version: 3, source: "export const v = 3;\n" });
    // Identical content to the recovered head is a no-op, not a fourth version.
    expect(await saveOk(f, '"g0.v3"', { source: "export const v = 3;" })).toMatchObject({
      noop: true,
      version: 3,
    });

    etag = await saveOk(f, '"g0.v3"', { source: "export const v = 4;" }).then((r) => r.etag);
    await evictDurableObject(stub);
    etag = await saveOk(f, etag, { source: "export const v = 5;" }).then((r) => r.etag);
    expect(etag).toBe('"g0.v5"');

    const rows = await versionRows(f.ws);
    expect(rows.map((r) => [r.number, r.source])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, `export const v = ${n};\n`]),
    );
    // History bytes were rebuilt from D1 on restart.
    const usage = await stub.getUsage(f.ws, Date.now());
    expect(usage.draftHistoryBytes.used).toBe(5 * ("export const v = 1;\n".length + 2));
  });

  it("a version number already taken in D1 makes the object re-read its head and refuse the stale ETag", async () => {
    const f = await fixture();
    const { etag } = await saveOk(f, '"g0.v0"', { source: "export const v = 1;" });
    // Without an eviction the object keeps its stale head; the UNIQUE index catches it.
    await crashAfterNextInsert(f.ws);
    await expectProblem(await save(f, { source: "export const v = 2;" }, { etag }), 500, "internal_error");
    const stale = await expectProblem(
      await save(f, { source: "export const other = 2;" }, { etag }),
      412,
      "precondition_failed",
    );
    expect(stale.etag).toBe('"g0.v2"');
    const rows = await versionRows(f.ws);
    expect(rows.map((r) => r.number)).toEqual([1, 2]);
    expect(rows[1]?.source).toBe("export const v = 2;\n");
    // The refused save spent no quota; the two stored saves did.
    expect((await workspaceStub(f.ws).getUsage(f.ws, Date.now())).draftSaves.used).toBe(2);
  });
});

describe("WorkspaceObject: compilation quota", () => {
  it("120 compilations per key per hour pass, the 121st is refused with the reset time, other keys and the next hour are not", async () => {
    const stub = env.WORKSPACE.getByName(`ws_compile_${crypto.randomUUID()}`);
    for (let i = 1; i <= LIMITS.compilationsPerHour; i++) {
      const charge = await stub.chargeCompilation("key_a", T0 + i * 1000);
      expect(charge).toMatchObject({ ok: true, value: { used: i } });
    }
    const refused = await stub.chargeCompilation("key_a", T0 + 30 * 60_000);
    expect(refused).toEqual(
      err({
        quota: "compilations",
        limit: LIMITS.compilationsPerHour,
        used: LIMITS.compilationsPerHour,
        resetAt: new Date(T0 + HOUR).toISOString(),
        retryAfterSeconds: 30 * 60,
      }),
    );
    expect(await stub.chargeCompilation("key_b", T0 + 30 * 60_000)).toMatchObject({
      ok: true,
      value: { used: 1 },
    });
    expect(await stub.chargeCompilation("key_a", T0 + HOUR)).toMatchObject({ ok: true, value: { used: 1 } });
  });
});

describe("WorkspaceObject: deployment pointers", () => {
  it("pointers are set, read and dropped, and active + shadow code fits the allowance exactly but not one byte over", async () => {
    const stub = env.WORKSPACE.getByName(`ws_pointers_${crypto.randomUUID()}`);
    const a = toolTarget("tool_a");
    const b = toolTarget("tool_b");
    expect(await stub.getPointers(a)).toEqual({ active: null, shadow: null });

    const first = await stub.setPointer(a, "active", "rev_1", 10 * MiB, T0);
    expect(first).toMatchObject({ kind: "set", previous: null, deployedCodeBytes: 10 * MiB });
    const full = await stub.setPointer(a, "shadow", "rev_2", 6 * MiB, T0);
    expect(full).toMatchObject({ kind: "set", deployedCodeBytes: LIMITS.deployedCodeBytesPerWorkspace });

    const over = await stub.setPointer(b, "active", "rev_3", 1, T0);
    expect(over).toEqual({
      kind: "allowance_exceeded",
      refusal: {
        allowance: "deployedCodeBytes",
        limit: LIMITS.deployedCodeBytesPerWorkspace,
        used: LIMITS.deployedCodeBytesPerWorkspace,
        requested: 1,
      },
    });
    expect(await stub.getPointers(b)).toEqual({ active: null, shadow: null });

    // Promoting the shadow revision to active counts its code once.
    const promoted = await stub.setPointer(a, "active", "rev_2", 6 * MiB, T0 + 1);
    expect(promoted).toMatchObject({
      kind: "set",
      previous: { revisionId: "rev_1" },
      deployedCodeBytes: 6 * MiB,
    });

    const dropped = await stub.dropPointer(a, "shadow");
    expect(dropped.dropped).toMatchObject({ revisionId: "rev_2", bytes: 6 * MiB });
    expect(dropped.pointers).toEqual({
      active: { revisionId: "rev_2", bytes: 6 * MiB, setAt: new Date(T0 + 1).toISOString() },
      shadow: null,
    });
    expect(await stub.setPointer(b, "active", "rev_3", 10 * MiB, T0)).toMatchObject({
      kind: "set",
      deployedCodeBytes: LIMITS.deployedCodeBytesPerWorkspace,
    });
  });
});

describe("WorkspaceObject: reset", () => {
  it("reset starts a new generation: old ETags never match, pointers and history bytes are released, old rows are deleted", async () => {
    const f = await fixture();
    const stub = workspaceStub(f.ws);
    const target = toolTarget(f.toolUid);
    let etag = await saveOk(f, '"g0.v0"', { source: "export const v = 1;" }).then((r) => r.etag);
    etag = await saveOk(f, etag, { source: "export const v = 2;" }).then((r) => r.etag);
    await stub.setPointer(target, "active", "rev_x", 1000);
    await stub.setPointer(target, "shadow", "rev_y", 500);

    const reset = await stub.resetTarget(f.ws, target);
    expect(reset).toMatchObject({
      generation: 1,
      previous: { generation: 0, version: 2 },
      head: { generation: 1, version: 0, etag: '"g1.v0"' },
      historyBytesReleased: 2 * ("export const v = 1;\n".length + 2),
      droppedPointers: { active: { revisionId: "rev_x" }, shadow: { revisionId: "rev_y" } },
      deployedCodeBytesReleased: 1500,
    });
    const usage = await stub.getUsage(f.ws, Date.now());
    expect(usage.draftHistoryBytes.used).toBe(0);
    expect(usage.deployedCodeBytes.used).toBe(0);

    // Before the rows are deleted they are already invisible: reads follow the generation.
    const { body, etag: headEtag } = await getHook(f);
    expect(headEtag).toBe('"g1.v0"');
    expect(body).toMatchObject({
      draft: { version: 0, source: "" },
      deployments: { active: null, shadow: null },
    });
    await expectProblem(
      await save(f, { source: "export const v = 9;" }, { etag }),
      412,
      "precondition_failed",
    );

    const saved = await saveOk(f, '"g1.v0"', { source: "export const fresh = 1;" });
    expect(saved.etag).toBe('"g1.v1"');
    expect(await deleteTargetVersions(database(env.DB), f.ws, target, reset.generation)).toBe(2);
    // A retried delete removes nothing new and spares the post-reset version.
    expect(await deleteTargetVersions(database(env.DB), f.ws, target, reset.generation)).toBe(0);
    expect((await versionRows(f.ws)).map((r) => [r.generation, r.number])).toEqual([[1, 1]]);

    // A restarted object keeps the generation (it lives in the object, not in D1).
    await evictDurableObject(stub);
    expect((await getHook(f)).etag).toBe('"g1.v1"');

    const event = await recordResetEvent(database(env.DB), {
      workspaceUid: f.ws,
      target,
      actor: "alice",
      at: new Date().toISOString(),
      versionsRemoved: 2,
      revisionsRemoved: 2,
    });
    expect(event.id).toMatch(/^reset_/);
    const list = await json<{ items: { version: number }[] }>(
      await call("GET", `${f.hook}/versions`, { key: f.readKey }),
      200,
    );
    expect(list.items.map((i) => i.version)).toEqual([1]);
  });
});

describe("WorkspaceObject: a deploy racing a reset", () => {
  it("a pointer to a revision of the generation a reset discarded is refused and nothing moves; the new generation deploys", async () => {
    const f = await fixture();
    const stub = workspaceStub(f.ws);
    const target = toolTarget(f.toolUid);
    await saveOk(f, '"g0.v0"', { source: "export const v = 1;" });
    const before = await stub.getHead(f.ws, target);
    // The deploy read this head and compiled; the reset lands before it moves the pointer.
    await stub.resetTarget(f.ws, target);
    const stale = await stub.setPointer(target, "active", "rev_old", 100, T0, before.generation);
    expect(stale).toEqual({ kind: "reset", generation: before.generation + 1 });
    expect(await stub.getPointers(target)).toEqual({ active: null, shadow: null });
    const current = await stub.setPointer(target, "active", "rev_new", 100, T0, before.generation + 1);
    expect(current).toMatchObject({ kind: "set", pointers: { active: { revisionId: "rev_new" } } });
  });
});

describe("WorkspaceObject: serialized saves", () => {
  it("concurrent saves to different targets never overrun the history allowance together", async () => {
    const ws = (await createWorkspace("serial")).uid;
    const stub = workspaceStub(ws);
    const draft = await prepareDraft({ source: "export const a = 1;", config: {} });
    // Existing history leaves room for exactly one more such draft.
    await env.DB.prepare(
      `insert into hook_versions (id, workspace_uid, target, generation, number, source, config, formatted, bytes,
         content_hash, actor, key_id, channel, created_at)
       values (?, ?, 'tool:filler', 0, 1, '', '{}', 0, ?, 'x', 'seed', 'seed', 'api', '2031-01-01T00:00:00.000Z')`,
    )
      .bind(crypto.randomUUID(), ws, LIMITS.draftHistoryBytesPerWorkspace - draft.bytes)
      .run();
    await stub.getUsage(ws, Date.now());
    // Production input gates let other calls in while a save awaits D1; a pause
    // between the insert and the head update gives them that chance here too.
    await runInDurableObject(stub, (instance: WorkspaceObject) => {
      instance.faults.afterVersionInsert = () => new Promise((resolve) => setTimeout(resolve, 20));
    });
    const outcomes = await Promise.all(
      ["tool:t1", "tool:t2", "tool:t3", "tool:t4"].map((target) =>
        stub.saveDraft({
          workspaceUid: ws,
          target,
          ifMatch: ['"g0.v0"'],
          draft,
          actor: "alice",
          keyId: "key_x",
          channel: "api",
          note: null,
          restoredFrom: null,
          now: Date.now(),
        }),
      ),
    );
    expect(outcomes.map((o) => o.kind).toSorted()).toEqual([
      "allowance_exceeded",
      "allowance_exceeded",
      "allowance_exceeded",
      "saved",
    ]);
    expect((await stub.getUsage(ws, Date.now())).draftHistoryBytes.used).toBe(
      LIMITS.draftHistoryBytesPerWorkspace,
    );
  });
});

describe("WorkspaceObject: the leased view", () => {
  it("a lease granted after any write sees it, though the reads before it were served from memory", async () => {
    const f = await fixture();
    const stub = workspaceStub(f.ws);
    const target = toolTarget(f.toolUid);
    const view = async () => (await stub.grantLease()).view;
    const active = async () => (await view()).pointers[target]?.active?.revisionId ?? null;

    const first = await view();
    expect(first.pointers[target]).toBeUndefined();
    expect(first.revoked).toEqual([]);
    const catalog = first.catalog + 1;
    await stub.setPointer(target, "active", "rev_1", 100);
    expect(await active()).toBe("rev_1");

    await stub.setPointer(target, "shadow", "rev_2", 100);
    expect((await view()).pointers[target]).toMatchObject({ shadow: { revisionId: "rev_2" } });
    await stub.dropPointer(target, "shadow");
    expect((await view()).pointers[target]).toMatchObject({ active: { revisionId: "rev_1" }, shadow: null });

    await stub.resetTarget(f.ws, target);
    expect(await active()).toBeNull();

    expect(await stub.catalogChanged()).toBe(catalog);
    expect((await view()).catalog).toBe(catalog);

    await stub.revokeKey("key_a");
    expect((await view()).revoked).toEqual(["key_a"]);

    // Every change moved the epoch: six writes since the first view.
    expect((await view()).epoch).toBe(first.epoch + 6);

    // A fresh instance reads the same from SQLite.
    await stub.setPointer(target, "active", "rev_3", 100);
    await evictDurableObject(stub);
    expect(await view()).toEqual({
      epoch: first.epoch + 7,
      catalog,
      pointers: { [target]: { active: expect.objectContaining({ revisionId: "rev_3" }), shadow: null } },
      revoked: ["key_a"],
    });
  });

  it("a caller that changes the pointers it was given changes nothing the next read returns", async () => {
    const stub = env.WORKSPACE.getByName(`ws_cache_${crypto.randomUUID()}`);
    const target = toolTarget("tool_a");
    await stub.setPointer(target, "active", "rev_1", 100, T0);
    await runInDurableObject(stub, (instance: WorkspaceObject) => {
      const given = instance.getPointers(target);
      given.active = null;
      given.shadow = { revisionId: "rev_x", bytes: 1, setAt: "" };
      expect(() => {
        Object.assign(instance.getPointers(target).active ?? {}, { revisionId: "rev_y" });
      }).toThrow(TypeError);
      expect(instance.getPointers(target)).toEqual({
        active: { revisionId: "rev_1", bytes: 100, setAt: new Date(T0).toISOString() },
        shadow: null,
      });
    });
  });
});
