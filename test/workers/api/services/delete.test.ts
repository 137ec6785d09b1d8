import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  hookVersionsLookup,
  setHookHistoryLookup,
  type HookHistoryLookup,
} from "../../../../workers/api/services/history-guard";
import { createWorkspace, expectProblem, json } from "../../../helpers/api";
import {
  byName,
  call,
  createService,
  listTools,
  newUpstream,
  refresh,
  snapshot,
  type Page,
  type ServiceBody,
  type ToolBody,
} from "./harness";

// Hook history belongs to the hook lifecycle; here a fake says which tools have some.
const withHistory = new Set<string>();
const fake: HookHistoryLookup = (_db, _ws, toolUids) =>
  Promise.resolve(toolUids.filter((uid) => withHistory.has(uid)));
let previous: HookHistoryLookup;
beforeEach(() => {
  withHistory.clear();
  previous = setHookHistoryLookup(fake);
});
afterEach(() => {
  setHookHistoryLookup(previous);
});

interface HistoryBody {
  service: ServiceBody;
  historyOnly: boolean;
  tools: (ToolBody & { hasHookHistory: boolean })[];
}

async function indexed() {
  const ws = (await createWorkspace()).uid;
  const upstream = newUpstream();
  const service = await createService(ws, { name: "docs", url: upstream.url });
  const tools = byName((await refresh(ws, service.uid)).tools);
  return { ws, upstream, service, tools };
}

/** Marks a service deleted before deletion was guarded, as old data has it. */
async function makeLegacy(serviceUid: string) {
  await env.DB.prepare(
    "update services set legacy = 1, deleted_at = ?, deleted_by = 'migration' where uid = ?",
  )
    .bind("2025-01-01T00:00:00.000Z", serviceUid)
    .run();
}

describe("deleting services", () => {
  it("is refused with 409 naming the tools that still have hook history", async () => {
    const { ws, service, tools, upstream } = await indexed();
    withHistory.add(tools.echo?.uid ?? "");
    // A tool removed upstream still counts.
    await upstream.hide(["always_fails"]);
    await refresh(ws, service.uid);
    withHistory.add(tools.always_fails?.uid ?? "");

    const before = await snapshot(ws);
    const problem = await expectProblem(
      await call("DELETE", `/v1/workspaces/${ws}/services/${service.uid}`),
      409,
      "conflict",
    );
    expect(problem.service).toBe(service.uid);
    expect(problem.tools).toEqual(
      expect.arrayContaining([
        { uid: tools.echo?.uid, upstreamName: "echo" },
        { uid: tools.always_fails?.uid, upstreamName: "always_fails" },
      ]),
    );
    expect(problem.tools).toHaveLength(2);
    expect(await snapshot(ws)).toBe(before);
    expect(await listTools(ws)).toHaveLength(3);
  });

  it("without hook history soft-deletes the service; its tools leave the list", async () => {
    const { ws, service, tools } = await indexed();
    const deleted = await json<ServiceBody>(
      await call("DELETE", `/v1/workspaces/${ws}/services/${service.uid}`),
      200,
    );
    expect(deleted).toMatchObject({
      uid: service.uid,
      deletedAt: expect.any(String),
      deletedBy: "bootstrap",
    });
    expect(await listTools(ws)).toEqual([]);
    const live = await json<Page<ServiceBody>>(await call("GET", `/v1/workspaces/${ws}/services`), 200);
    expect(live.items).toEqual([]);
    const gone = await json<Page<ServiceBody>>(
      await call("GET", `/v1/workspaces/${ws}/services?deleted=true`),
      200,
    );
    expect(gone.items.map((s) => s.uid)).toEqual([service.uid]);

    // Rows are kept (hook history and logs may name them).
    const row = await env.DB.prepare("select count(*) as n from tools where service_uid = ?")
      .bind(service.uid)
      .first<{ n: number }>();
    expect(row?.n).toBe(3);
    const tool = await json<ToolBody>(
      await call("GET", `/v1/workspaces/${ws}/tools/${tools.echo?.uid}`),
      200,
    );
    expect(tool).toMatchObject({ serviceDeleted: true, name: null });

    // The name is free again.
    await createService(ws, { name: "docs", url: newUpstream().url });
  });

  it("a deleted service takes no more writes", async () => {
    const { ws, service, tools, upstream } = await indexed();
    await upstream.variant("v2");
    await refresh(ws, service.uid);
    await json(await call("DELETE", `/v1/workspaces/${ws}/services/${service.uid}`), 200);
    const before = await snapshot(ws);
    for (const [method, path] of [
      ["POST", `/services/${service.uid}/refresh`],
      ["DELETE", `/services/${service.uid}`],
      ["POST", `/tools/${tools.echo?.uid}/review/accept`],
    ] as const) {
      await expectProblem(await call(method, `/v1/workspaces/${ws}${path}`), 409, "conflict");
    }
    expect(await snapshot(ws)).toBe(before);
  });
});

describe("legacy deleted services", () => {
  it("keep a history-only view of their tools, showing which have hook history", async () => {
    const { ws, service, tools, upstream } = await indexed();
    await upstream.variant("v2");
    await refresh(ws, service.uid);
    await makeLegacy(service.uid);
    withHistory.add(tools.search_release_notes?.uid ?? "");

    const view = await json<HistoryBody>(
      await call("GET", `/v1/workspaces/${ws}/services/${service.uid}/history`),
      200,
    );
    expect(view.service).toMatchObject({ uid: service.uid, legacy: true, deletedAt: expect.any(String) });
    expect(view.historyOnly).toBe(true);
    expect(Object.fromEntries(view.tools.map((t) => [t.upstreamName, t.hasHookHistory]))).toEqual({
      always_fails: false,
      echo: false,
      search_release_notes: true,
    });
    expect(byName(view.tools).search_release_notes).toMatchObject({
      uid: tools.search_release_notes?.uid,
      inputSchema: tools.search_release_notes?.inputSchema,
      connectionId: service.uid,
    });

    // Gone from the tool list and the live service list; listed among deleted services.
    expect(await listTools(ws)).toEqual([]);
    const live = await json<Page<ServiceBody>>(await call("GET", `/v1/workspaces/${ws}/services`), 200);
    expect(live.items).toEqual([]);
    const gone = await json<Page<ServiceBody>>(
      await call("GET", `/v1/workspaces/${ws}/services?deleted=true`),
      200,
    );
    expect(gone.items.map((s) => s.uid)).toEqual([service.uid]);
  });

  it("refuse refresh, review acceptance and deletion with 409 and change nothing", async () => {
    const { ws, service, tools, upstream } = await indexed();
    await upstream.variant("v2");
    await refresh(ws, service.uid);
    await makeLegacy(service.uid);
    const before = await snapshot(ws);
    for (const [method, path] of [
      ["POST", `/services/${service.uid}/refresh`],
      ["DELETE", `/services/${service.uid}`],
      ["POST", `/tools/${tools.echo?.uid}/review/accept`],
    ] as const) {
      const problem = await expectProblem(await call(method, `/v1/workspaces/${ws}${path}`), 409, "conflict");
      expect(problem).toMatchObject({ service: service.uid, legacy: true });
    }
    expect(await snapshot(ws)).toBe(before);
  });

  it("a live service's history view is not history-only", async () => {
    const { ws, service } = await indexed();
    const view = await json<HistoryBody>(
      await call("GET", `/v1/workspaces/${ws}/services/${service.uid}/history`),
      200,
    );
    expect(view.historyOnly).toBe(false);
    expect(view.tools.every((t) => !t.hasHookHistory)).toBe(true);
  });
});

/** A minimal stored hook version of `target`. */
const insertHookVersion = (workspace: string, target: string) =>
  env.DB.prepare(
    `insert into hook_versions (id, workspace_uid, target, generation, number, source, config, formatted, bytes,
           content_hash, actor, key_id, channel, created_at)
         values (?, ?, ?, 0, 1, '', '{}', 0, 0, '', 'tester', 'bootstrap', 'api', '2026-01-01T00:00:00.000Z')`,
  )
    .bind(crypto.randomUUID(), workspace, target)
    .run();

describe("the default hook history lookup", () => {
  it("reads hook_versions targets of the form tool:<uid>, per workspace", async () => {
    const { ws, tools } = await indexed();
    const other = (await createWorkspace()).uid;
    const echo = tools.echo?.uid ?? "";
    await insertHookVersion(ws, `tool:${echo}`);
    await insertHookVersion(other, `tool:${tools.always_fails?.uid}`);
    const all = Object.values(tools).map((t) => t.uid);
    expect(await hookVersionsLookup(env.DB, ws, all)).toEqual([echo]);
    expect(await hookVersionsLookup(env.DB, ws, [])).toEqual([]);
  });
});
