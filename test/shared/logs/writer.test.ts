// The hook-run log writer: what is stored, when details are kept, and that
// writing never fails a caller.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { DETAILS_MAX_BYTES, UNSERIALISABLE_KEY } from "../../../shared/logs/details";
import { ROWS_PER_INSERT } from "../../../shared/logs/insert";
import { deferRuns, recordRuns } from "../../../shared/logs/writer";
import { createWorkspace } from "../../helpers/api";
import { CAPTURE, NO_CAPTURE, runRecord, storedRuns } from "./harness";

const parseJson = (text: string): unknown => JSON.parse(text);

const metadataOf = (ws: string) =>
  env.DB.prepare(
    `select kind, target, tool_uid, tool_name, stage, channel, outcome, code, revision_id, request_id,
            duration_ms, fuel_used, shadow_differed, loop, plugin, at, details
     from hook_runs where workspace_uid = ?`,
  )
    .bind(ws)
    .all();

describe("recordRuns", () => {
  it("stores every metadata field of a record even without payload capture", async () => {
    const ws = (await createWorkspace()).uid;
    const record = runRecord(ws, {
      channel: "shadow",
      outcome: "reject",
      code: "hook_reject",
      shadowDiffered: true,
      plugin: "redact",
      loop: null,
      at: "2031-05-06T10:00:00.123Z",
    });
    await recordRuns(env, [record], NO_CAPTURE);
    expect((await metadataOf(ws)).results).toEqual([
      {
        kind: "tool_adapter",
        target: "tool:tool_a",
        tool_uid: "tool_a",
        tool_name: "echo",
        stage: "before",
        channel: "shadow",
        outcome: "reject",
        code: "hook_reject",
        revision_id: "rev_1",
        request_id: record.requestId,
        duration_ms: 0.4,
        fuel_used: 1200,
        shadow_differed: 1,
        loop: null,
        plugin: "redact",
        at: "2031-05-06T10:00:00.123Z",
        details: null,
      },
    ]);
  });

  it("keeps details only when the service captures payloads and the detail policy is capture", async () => {
    const cases = [
      [{ payloadCapture: true, detailPolicy: "capture" }, true],
      [{ payloadCapture: true, detailPolicy: "none" }, false],
      [{ payloadCapture: false, detailPolicy: "capture" }, false],
      [{ payloadCapture: false, detailPolicy: "none" }, false],
    ] as const;
    for (const [capture, kept] of cases) {
      const ws = (await createWorkspace()).uid;
      const record = runRecord(ws);
      await recordRuns(env, [record], capture);
      const rows = await storedRuns(ws);
      const stored = rows.map((row) => ({
        capture,
        details: row.details === null ? null : parseJson(row.details),
        capturedAt: row.details_captured_at !== null,
      }));
      expect(stored).toEqual([{ capture, details: kept ? record.details : null, capturedAt: kept }]);
    }
  });

  it("a record whose captured payload cannot be serialised is still written, with a marker in its place", async () => {
    const ws = (await createWorkspace()).uid;
    const cycle: Record<string, unknown> = { text: "x" };
    cycle.self = cycle;
    const record = runRecord(ws, { details: { arguments: cycle as never, result: { ok: true } } });
    await recordRuns(env, [record], CAPTURE);
    const rows = await storedRuns(ws);
    expect(rows).toHaveLength(1);
    expect(parseJson(rows[0]?.details ?? "null")).toEqual({
      arguments: { [UNSERIALISABLE_KEY]: expect.stringContaining("not stored") },
      result: { ok: true },
    });
  });

  it("a record without details stores null details even under capture", async () => {
    const ws = (await createWorkspace()).uid;
    await recordRuns(env, [runRecord(ws, { details: null })], CAPTURE);
    const [row] = await storedRuns(ws);
    expect(row?.details).toBeNull();
    expect(row?.details_captured_at).toBeNull();
  });

  it("details over 16 KiB are stored truncated within the bound", async () => {
    const ws = (await createWorkspace()).uid;
    const logs = Array.from({ length: 50 }, (_, i) => ({
      level: "info" as const,
      message: `entry ${i} ${"m".repeat(900)}`,
      data: { blob: "d".repeat(2000) },
    }));
    await recordRuns(
      env,
      [runRecord(ws, { details: { message: "hello", logs, result: { big: "r".repeat(40_000) } } })],
      CAPTURE,
    );
    const [row] = await storedRuns(ws);
    const text = row?.details ?? "";
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    const details: { message: string; result?: unknown; logs: unknown[]; truncated: { omitted: string[] } } =
      JSON.parse(text);
    expect(details.message).toBe("hello");
    expect(details.result).toBeUndefined();
    expect(details.truncated.omitted).toContain("result");
    expect(details.logs.length).toBeGreaterThan(0);
  });

  it("writes more records than one statement can bind, all in one batch", async () => {
    const ws = (await createWorkspace()).uid;
    const count = ROWS_PER_INSERT * 4 + 3;
    expect(ROWS_PER_INSERT).toBeGreaterThanOrEqual(1);
    await recordRuns(
      env,
      Array.from({ length: count }, () => runRecord(ws)),
      CAPTURE,
    );
    expect(await storedRuns(ws)).toHaveLength(count);
  });

  it("ids are log_… and sort by the run's time, not the order of writing", async () => {
    const ws = (await createWorkspace()).uid;
    const late = runRecord(ws, { at: "2031-05-06T10:00:02.000Z", requestId: "late" });
    const early = runRecord(ws, { at: "2031-05-06T10:00:01.000Z", requestId: "early" });
    await recordRuns(env, [late], CAPTURE);
    await recordRuns(env, [early], CAPTURE);
    const rows = await storedRuns(ws);
    expect(rows.map((r) => r.request_id)).toEqual(["early", "late"]);
    for (const row of rows) expect(row.id).toMatch(/^log_[0-9a-z]{22}$/);
  });

  it("a record with an unparseable time is stored at the time of writing", async () => {
    const ws = (await createWorkspace()).uid;
    const before = Date.now();
    await recordRuns(env, [runRecord(ws, { at: "not a time" })], CAPTURE);
    const [row] = await storedRuns(ws);
    expect(Date.parse(row?.at ?? "")).toBeGreaterThanOrEqual(before);
  });

  it("a failing write rejects (one batch: nothing of it is stored)", async () => {
    const ws = (await createWorkspace()).uid;
    const records = [runRecord(ws), runRecord("ws_does_not_exist")];
    await expect(recordRuns(env, records, CAPTURE)).rejects.toThrow(/FOREIGN KEY/i);
    expect(await storedRuns(ws)).toHaveLength(0);
  });
});

describe("deferRuns", () => {
  it("writes through waitUntil, after the caller has returned", async () => {
    const ws = (await createWorkspace()).uid;
    const ctx = createExecutionContext();
    deferRuns(ctx, env, [runRecord(ws), runRecord(ws)], CAPTURE);
    await waitOnExecutionContext(ctx);
    expect(await storedRuns(ws)).toHaveLength(2);
  });

  it("reads settings and builds rows only on a later turn, not in the microtasks before a response", async () => {
    const ws = (await createWorkspace()).uid;
    const ctx = createExecutionContext();
    let asked = 0;
    deferRuns(ctx, env, [runRecord(ws)], () => {
      asked++;
      return Promise.resolve(CAPTURE);
    });
    // Everything a handler does before its Response is handed over runs in microtasks like these.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(asked).toBe(0);
    await waitOnExecutionContext(ctx);
    expect(asked).toBe(1);
    expect(await storedRuns(ws)).toHaveLength(1);
  });

  it("a failing write does not throw into the caller and is logged", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // A binding whose every call fails, as D1 does when it is unavailable.
      const broken = new Proxy(env.DB, {
        get: () => () => {
          throw new Error("D1 is down");
        },
      });
      const ctx = createExecutionContext();
      expect(() => deferRuns(ctx, { DB: broken }, [runRecord("ws_x")], CAPTURE)).not.toThrow();
      await expect(waitOnExecutionContext(ctx)).resolves.toBeUndefined();
      expect(errors).toHaveBeenCalledWith(
        "hook-run log write failed",
        expect.objectContaining({ records: 1 }),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
