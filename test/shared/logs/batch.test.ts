// Run records batched per isolate (shared/logs/batch.ts): rows gathered while
// a batch is open are written together once it closes, by time or by size, and
// one workspace's failing rows never cost another workspace its records.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { RunBatcher } from "../../../shared/logs/batch";
import { ROWS_PER_INSERT } from "../../../shared/logs/insert";
import { toRows } from "../../../shared/logs/writer";
import { createWorkspace } from "../../helpers/api";
import { NO_CAPTURE, runRecord, storedRuns } from "./harness";

const rowsFor = (ws: string, requestId: string) => toRows([runRecord(ws, { requestId })], NO_CAPTURE);
const requestIds = async (ws: string) => (await storedRuns(ws)).map((r) => r.request_id).toSorted();

describe("RunBatcher", () => {
  it("writes the rows of several requests together once the batch's delay has passed", async () => {
    const ws = (await createWorkspace()).uid;
    const batcher = new RunBatcher({ delayMs: 300, maxRows: 100, rowsPerInsert: ROWS_PER_INSERT });
    const first = batcher.add(env.DB, rowsFor(ws, "r1"));
    const second = batcher.add(env.DB, rowsFor(ws, "r2"));
    expect(second).toBe(first);
    expect(await storedRuns(ws)).toHaveLength(0);
    await first;
    expect(await requestIds(ws)).toEqual(["r1", "r2"]);
  });

  it("a batch that reaches its size is written without waiting for its delay", async () => {
    const ws = (await createWorkspace()).uid;
    // A delay longer than the test timeout: only the size can close this batch in time.
    const batcher = new RunBatcher({ delayMs: 600_000, maxRows: 3, rowsPerInsert: ROWS_PER_INSERT });
    const written = batcher.add(env.DB, [...rowsFor(ws, "a"), ...rowsFor(ws, "b")]);
    await Promise.all([written, batcher.add(env.DB, rowsFor(ws, "c"))]);
    expect(await requestIds(ws)).toEqual(["a", "b", "c"]);
  });

  it("rows added once a batch's write has started go into the next batch, none lost", async () => {
    const ws = (await createWorkspace()).uid;
    const batcher = new RunBatcher({ delayMs: 0, maxRows: 100, rowsPerInsert: ROWS_PER_INSERT });
    const first = batcher.add(env.DB, rowsFor(ws, "early"));
    await first;
    const second = batcher.add(env.DB, rowsFor(ws, "late"));
    expect(second).not.toBe(first);
    await second;
    expect(await requestIds(ws)).toEqual(["early", "late"]);
  });

  it("rows queued for later are made only when their batch is written", async () => {
    const ws = (await createWorkspace()).uid;
    const batcher = new RunBatcher({ delayMs: 300, maxRows: 100, rowsPerInsert: ROWS_PER_INSERT });
    let made = 0;
    const written = batcher.addLater(env.DB, 1, () => {
      made++;
      return rowsFor(ws, "lazy");
    });
    await scheduler.wait(5);
    expect(made).toBe(0);
    await written;
    expect(made).toBe(1);
    expect(await requestIds(ws)).toEqual(["lazy"]);
  });

  it("a source that fails loses only its own rows, and says how many", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ws = (await createWorkspace()).uid;
      const batcher = new RunBatcher({ delayMs: 0, maxRows: 100, rowsPerInsert: ROWS_PER_INSERT });
      await Promise.all([
        batcher.add(env.DB, rowsFor(ws, "kept")),
        batcher.addLater(env.DB, 3, () => Promise.reject(new Error("settings read failed"))),
      ]);
      expect(await requestIds(ws)).toEqual(["kept"]);
      expect(errors).toHaveBeenCalledWith(
        "hook-run log write failed",
        expect.objectContaining({ records: 3 }),
      );
    } finally {
      errors.mockRestore();
    }
  });

  it("queued counts close a batch by size before any row is made", async () => {
    const ws = (await createWorkspace()).uid;
    const batcher = new RunBatcher({ delayMs: 600_000, maxRows: 2, rowsPerInsert: ROWS_PER_INSERT });
    const first = batcher.addLater(env.DB, 1, () => rowsFor(ws, "x"));
    await Promise.all([first, batcher.addLater(env.DB, 1, () => rowsFor(ws, "y"))]);
    expect(await requestIds(ws)).toEqual(["x", "y"]);
  });

  it("a workspace whose rows cannot be stored does not cost another workspace its rows", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ws = (await createWorkspace()).uid;
      const batcher = new RunBatcher({ delayMs: 0, maxRows: 100, rowsPerInsert: ROWS_PER_INSERT });
      const kept = batcher.add(env.DB, rowsFor(ws, "kept"));
      // No such workspace: its rows fail the foreign key, and with them the batch's first, atomic write.
      await Promise.all([
        kept,
        batcher.add(env.DB, [...rowsFor("ws_gone", "lost1"), ...rowsFor("ws_gone", "lost2")]),
      ]);
      expect(await requestIds(ws)).toEqual(["kept"]);
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors).toHaveBeenCalledWith(
        "hook-run log write failed",
        expect.objectContaining({ records: 2 }),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
