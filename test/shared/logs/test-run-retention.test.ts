// The scheduled retention sweep expires test-console runs exactly like
// hook-run records: rows older than `logsDays` go, details older than
// `detailsDays` are cleared, each workspace by its own config.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../shared/db/client";
import { storeTestRun } from "../../../workers/api/deploy/test-runs";
import { runRetention } from "../../../shared/logs/retention";
import worker from "../../../workers/api/index";
import { call, createWorkspace, json } from "../../helpers/api";
import { fileFixture, LIB_SOURCE, saveFile, testFile } from "../../workers/api/routes/files-harness";
import { CAPTURE, DAY, record, runRecord, storedRuns } from "./harness";

const NOW = Date.now();
const ago = (days: number, plusMs = 0) => NOW - days * DAY + plusMs;

async function fireCron(scheduledTime = NOW): Promise<void> {
  const controller = createScheduledController({ scheduledTime, cron: "17 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

/** A stored test run labelled by its stage, at `at` (epoch ms), with details under capture. */
function storeAt(ws: string, label: string, at: number): Promise<string> {
  return storeTestRun(database(env.DB), {
    workspaceUid: ws,
    target: "file:lib/p.ts",
    generation: 0,
    version: 1,
    stage: label,
    ok: true,
    code: null,
    counts: true,
    actor: "alice",
    keyId: "key_1",
    details: { arguments: { text: label }, result: { text: `${label}!` } },
    capture: CAPTURE,
    at,
  });
}

/** Labels of the workspace's test runs (oldest first), split by whether they still hold details. */
async function testRunState(ws: string) {
  const { results } = await env.DB.prepare(
    "select stage, details, details_captured_at from hook_test_runs where workspace_uid = ? order by id",
  )
    .bind(ws)
    .all<{ stage: string; details: string | null; details_captured_at: string | null }>();
  for (const row of results) expect(row.details === null).toBe(row.details_captured_at === null);
  return {
    withDetails: results.filter((r) => r.details !== null).map((r) => r.stage),
    withoutDetails: results.filter((r) => r.details === null).map((r) => r.stage),
  };
}

/** The same split for the workspace's hook-run records, labelled by request id. */
async function runState(ws: string) {
  const rows = await storedRuns(ws);
  return {
    withDetails: rows.filter((r) => r.details !== null).map((r) => r.request_id),
    withoutDetails: rows.filter((r) => r.details === null).map((r) => r.request_id),
  };
}

/** A hook-run record and a test run for each label, at the same instant. */
async function both(ws: string, at: Record<string, number>): Promise<void> {
  await record(
    Object.entries(at).map(([label, ms]) =>
      runRecord(ws, { requestId: label, at: new Date(ms).toISOString() }),
    ),
    CAPTURE,
  );
  for (const [label, ms] of Object.entries(at)) await storeAt(ws, label, ms);
}

describe("test-run retention (scheduled)", () => {
  it("deletes test runs past logsDays and clears their details past detailsDays, like hook_runs", async () => {
    const ws = (await createWorkspace("test-retention")).uid;
    // Defaults: details 7 days, rows 30 days. At the age exactly: kept; 1 ms over: gone.
    await both(ws, {
      ancient: ago(400),
      "row-deleted": ago(30, -1),
      "row-kept": ago(30),
      "details-cleared": ago(7, -1),
      "details-kept": ago(7),
      fresh: ago(0, -60_000),
    });
    const expected = {
      withDetails: ["details-kept", "fresh"],
      withoutDetails: ["row-kept", "details-cleared"],
    };
    await fireCron();
    expect(await testRunState(ws)).toEqual(expected);
    expect(await runState(ws)).toEqual(expected);
  });

  it("each workspace's retention config decides for its test runs", async () => {
    const ws = (await createWorkspace("test-retention-short")).uid;
    await json(
      await call("PUT", `/v1/workspaces/${ws}/config`, {
        body: { retention: { detailsDays: 1, logsDays: 2 } },
        headers: { "if-match": '"c0"' },
      }),
      200,
    );
    await both(ws, { d3: ago(3), "d2-over": ago(2, -60_000), d2: ago(2, 60_000), d1: ago(1, -60_000) });
    await fireCron();
    const expected = { withDetails: [], withoutDetails: ["d2", "d1"] };
    expect(await testRunState(ws)).toEqual(expected);
    expect(await runState(ws)).toEqual(expected);
  });

  it("a run made through the console now is untouched, and a second sweep changes nothing", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    const run = await testFile(f, "lib/p.ts", { input: { text: "now" } });
    await storeAt(f.ws, "old", ago(40));
    const read = () =>
      env.DB.prepare("select * from hook_test_runs where workspace_uid = ? order by id").bind(f.ws).all();
    await fireCron();
    const once = (await read()).results;
    expect(once.map((r) => r.id)).toEqual([run.id]);
    expect(once[0]?.details).not.toBeNull();
    await fireCron();
    expect((await read()).results).toEqual(once);
    expect(await runRetention(env, { now: NOW })).toMatchObject({
      testRunsDeleted: 0,
      testDetailsCleared: 0,
      complete: true,
    });
  });

  it("a small budget moves through a workspace step by step and still finishes", async () => {
    const ws = (await createWorkspace("test-retention-budget")).uid;
    for (let i = 0; i < 5; i++) await storeAt(ws, `gone_${i}`, ago(40, i));
    for (let i = 0; i < 3; i++) await storeAt(ws, `strip_${i}`, ago(10, i));
    // Cursor read, workspace page, then one statement: never enough for a whole workspace.
    const options = { now: NOW, batchSize: 2, maxStatements: 3 };
    let complete = false;
    for (let i = 0; i < 200 && !complete; i++) {
      const report = await runRetention(env, options);
      expect(report.statements).toBeLessThanOrEqual(options.maxStatements + 1);
      complete = report.complete;
    }
    expect(complete).toBe(true);
    expect(await testRunState(ws)).toEqual({
      withDetails: [],
      withoutDetails: ["strip_0", "strip_1", "strip_2"],
    });
  });
});
