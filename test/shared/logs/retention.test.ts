// The api Worker's scheduled retention sweep over hook-run logs.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runRetention } from "../../../shared/logs/retention";
import worker from "../../../workers/api/index";
import { call, createWorkspace, json } from "../../helpers/api";
import { CAPTURE, DAY, record, runRecord, storedRuns } from "./harness";

const NOW = Date.now();
const daysAgo = (days: number, plusMs = 0) => new Date(NOW - days * DAY + plusMs).toISOString();

/** Fires the Worker's own scheduled handler, as the cron trigger would. */
async function fireCron(scheduledTime = NOW): Promise<void> {
  const controller = createScheduledController({ scheduledTime, cron: "17 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

async function setRetention(ws: string, retention: { detailsDays?: number; logsDays?: number }) {
  await json(
    await call("PUT", `/v1/workspaces/${ws}/config`, {
      body: { retention },
      headers: { "if-match": '"c0"' },
    }),
    200,
  );
}

/** Request ids of the workspace's rows, split by whether they still hold details. */
async function state(ws: string) {
  const rows = await storedRuns(ws);
  return {
    withDetails: rows.filter((r) => r.details !== null).map((r) => r.request_id),
    withoutDetails: rows.filter((r) => r.details === null).map((r) => r.request_id),
  };
}

describe("log retention (scheduled)", () => {
  it("clears details past detailsDays, deletes rows past logsDays and leaves recent records untouched", async () => {
    const ws = (await createWorkspace("retention")).uid;
    await record(
      [
        runRecord(ws, { requestId: "fresh", at: daysAgo(0, -60_000) }),
        runRecord(ws, { requestId: "details-kept", at: daysAgo(7, 60_000) }),
        runRecord(ws, { requestId: "details-cleared", at: daysAgo(7, -60_000) }),
        runRecord(ws, { requestId: "row-kept", at: daysAgo(30, 60_000) }),
        runRecord(ws, { requestId: "row-deleted", at: daysAgo(30, -60_000) }),
        runRecord(ws, { requestId: "ancient", at: daysAgo(400) }),
      ],
      CAPTURE,
    );
    const before = (await storedRuns(ws)).find((r) => r.request_id === "fresh");
    await fireCron();
    expect(await state(ws)).toEqual({
      withDetails: ["details-kept", "fresh"],
      withoutDetails: ["row-kept", "details-cleared"],
    });
    const cleared = (await storedRuns(ws)).find((r) => r.request_id === "details-cleared");
    expect(cleared?.details_captured_at).toBeNull();
    // Untouched means untouched: the same id, details and capture time.
    expect((await storedRuns(ws)).find((r) => r.request_id === "fresh")).toEqual(before);
  });

  it("each workspace's own retention config decides", async () => {
    const short = (await createWorkspace("short")).uid;
    const long = (await createWorkspace("long")).uid;
    await setRetention(short, { detailsDays: 1, logsDays: 2 });
    await setRetention(long, { detailsDays: 90, logsDays: 365 });
    for (const ws of [short, long]) {
      await record(
        [
          runRecord(ws, { requestId: "d1", at: daysAgo(1, -60_000) }),
          runRecord(ws, { requestId: "d3", at: daysAgo(3) }),
          runRecord(ws, { requestId: "d100", at: daysAgo(100) }),
        ],
        CAPTURE,
      );
    }
    await fireCron();
    expect(await state(short)).toEqual({ withDetails: [], withoutDetails: ["d1"] });
    expect(await state(long)).toEqual({ withDetails: ["d3", "d1"], withoutDetails: ["d100"] });
  });

  it("running the sweep twice changes nothing more", async () => {
    const ws = (await createWorkspace("twice")).uid;
    await record(
      [
        runRecord(ws, { requestId: "new", at: daysAgo(1) }),
        runRecord(ws, { requestId: "old-details", at: daysAgo(10) }),
        runRecord(ws, { requestId: "gone", at: daysAgo(40) }),
      ],
      CAPTURE,
    );
    await fireCron();
    const once = await storedRuns(ws);
    expect(once.map((r) => r.request_id)).toEqual(["old-details", "new"]);
    await fireCron();
    expect(await storedRuns(ws)).toEqual(once);
    const again = await runRetention(env, { now: NOW });
    expect(again).toMatchObject({ rowsDeleted: 0, detailsCleared: 0, complete: true });
  });

  it("a bounded batch leaves the rest for the next run, which resumes and finishes", async () => {
    const ws = (await createWorkspace("bounded")).uid;
    await record(
      Array.from({ length: 7 }, (_, i) => runRecord(ws, { requestId: `gone_${i}`, at: daysAgo(40, i) })),
      CAPTURE,
    );
    await record(
      Array.from({ length: 5 }, (_, i) => runRecord(ws, { requestId: `strip_${i}`, at: daysAgo(10, i) })),
      CAPTURE,
    );
    const options = { now: NOW, batchSize: 2, maxStatements: 4 };
    const remaining = async () => {
      const rows = await storedRuns(ws);
      return {
        rows: rows.filter((r) => r.request_id.startsWith("gone_")).length,
        details: rows.filter((r) => r.details !== null).length,
      };
    };
    const observed = [await remaining()];
    const reports = [];
    for (let i = 0; i < 30 && !reports.at(-1)?.complete; i++) {
      const report = await runRetention(env, options);
      reports.push(report);
      // One run never exceeds its budget (plus the cursor write), nor a batch per statement.
      expect(report.statements).toBeLessThanOrEqual(options.maxStatements + 1);
      expect(report.rowsDeleted + report.detailsCleared).toBeLessThanOrEqual(
        options.batchSize * options.maxStatements,
      );
      observed.push(await remaining());
    }
    expect(reports[0]?.complete).toBe(false);
    expect(reports.at(-1)?.complete).toBe(true);
    // Some run stopped part-way through this workspace and a later one finished it.
    expect(observed.some((o) => o.rows > 0 && o.rows < 7)).toBe(true);
    expect(observed.some((o) => o.rows === 0 && o.details > 0 && o.details < 5)).toBe(true);
    expect(await state(ws)).toEqual({
      withDetails: [],
      withoutDetails: [0, 1, 2, 3, 4].map((i) => `strip_${i}`),
    });
  });

  it("an unfinished run resumes at the workspace it stopped in, not at the first one", async () => {
    const workspaces = [];
    for (let i = 0; i < 3; i++) {
      const ws = (await createWorkspace(`resume${i}`)).uid;
      await record([runRecord(ws, { requestId: "gone", at: daysAgo(40) })], CAPTURE);
      workspaces.push(ws);
    }
    // Settle everything else in this file's database first.
    await runRetention(env, { now: NOW });
    const fresh = [];
    for (let i = 0; i < 4; i++) {
      const ws = (await createWorkspace(`later${i}`)).uid;
      await record([runRecord(ws, { requestId: "gone", at: daysAgo(40) })], CAPTURE);
      fresh.push(ws);
    }
    // Each run affords a few statements; across runs every workspace is reached.
    const options = { now: NOW, batchSize: 500, maxStatements: 5 };
    for (let i = 0; i < 50; i++) {
      const report = await runRetention(env, options);
      if (report.complete) break;
    }
    for (const ws of [...workspaces, ...fresh]) expect(await storedRuns(ws)).toEqual([]);
  });

  it("records written while the sweep runs are never removed", async () => {
    const ws = (await createWorkspace("concurrent")).uid;
    await record(
      Array.from({ length: 30 }, (_, i) => runRecord(ws, { requestId: `old_${i}`, at: daysAgo(50, i) })),
      CAPTURE,
    );
    const live = Array.from({ length: 20 }, (_, i) =>
      runRecord(ws, { requestId: `live_${i}`, at: new Date().toISOString() }),
    );
    await Promise.all([
      runRetention(env, { now: NOW, batchSize: 3, maxStatements: 200 }),
      ...live.map((r) => record([r], CAPTURE)),
    ]);
    const rows = await storedRuns(ws);
    expect(rows.map((r) => r.request_id).toSorted()).toEqual(live.map((r) => r.requestId).toSorted());
    expect(rows.every((r) => r.details !== null)).toBe(true);
  });
});
