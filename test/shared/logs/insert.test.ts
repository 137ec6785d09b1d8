// The run rows' INSERT: bound to statement texts made from the drizzle table,
// it must store exactly what drizzle's own insert of the same rows stores.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../../shared/db/client";
import { hookRuns } from "../../../shared/db/schema";
import { insertRows, ROWS_PER_INSERT, type RunRow } from "../../../shared/logs/insert";
import { toRows } from "../../../shared/logs/writer";
import { createWorkspace } from "../../helpers/api";
import { CAPTURE, runRecord } from "./harness";

/** Every column of the workspace's rows, by id, without the id itself. */
async function storedById(ws: string): Promise<Map<string, Record<string, unknown>>> {
  const { results } = await env.DB.prepare("select * from hook_runs where workspace_uid = ? order by id")
    .bind(ws)
    .all();
  return new Map(results.map(({ id, ...row }) => [String(id), row]));
}

/** Rows with every kind of value a column can hold: JSON details, booleans, nulls, a column left to its default. */
function variedRows(ws: string): RunRow[] {
  const records = [
    runRecord(ws),
    runRecord(ws, { shadowDiffered: true, channel: "shadow", outcome: "reject", code: "hook_reject" }),
    runRecord(ws, { shadowDiffered: false, details: null, plugin: "redact", loop: "main" }),
    runRecord(ws, { kind: "request_hook", turnError: true, attempt: 2, mode: "code" }),
    runRecord(ws, { turnError: false, durationMs: 12.5, fuelUsed: 0 }),
  ];
  const rows = toRows(records, CAPTURE);
  // Left out, as a caller may: the column's default applies.
  const { mode: _mode, ...withoutMode } = rows[0] as RunRow;
  return [withoutMode, ...rows.slice(1)];
}

describe("insertRows", () => {
  it("stores every column exactly as drizzle's insert of the same rows does", async () => {
    const ours = (await createWorkspace()).uid;
    const theirs = (await createWorkspace()).uid;
    const rows = variedRows(ours);
    await insertRows(env.DB, rows);
    const orm = database(env.DB);
    for (const row of rows) {
      await orm.insert(hookRuns).values({ ...row, workspaceUid: theirs, id: `${row.id}_d` });
    }
    const stored = await storedById(ours);
    const expected = await storedById(theirs);
    expect(stored.size).toBe(rows.length);
    for (const [id, row] of stored) {
      expect(row).toEqual({ ...expected.get(`${id}_d`), workspace_uid: ours });
    }
    expect([...stored.values()][0]?.mode).toBe("direct");
  });

  it("an explicit null stays null where drizzle's would: a NOT NULL column with a default refuses it", async () => {
    const ws = (await createWorkspace()).uid;
    const [row] = toRows([runRecord(ws)], CAPTURE);
    const nulled = { ...row, mode: null } as unknown as RunRow;
    await expect(insertRows(env.DB, [nulled])).rejects.toThrow(/NOT NULL/i);
    // drizzle names the failed query and keeps D1's error as the cause.
    await expect(database(env.DB).insert(hookRuns).values(nulled)).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/NOT NULL/i) },
    });
    expect((await storedById(ws)).size).toBe(0);
  });

  it("a statement holds up to the bound-parameter limit's rows, and more rows go into further statements of one batch", async () => {
    const ws = (await createWorkspace()).uid;
    const record = () => runRecord(ws);
    const atLimit = toRows(Array.from({ length: ROWS_PER_INSERT }, record), CAPTURE);
    await insertRows(env.DB, atLimit);
    expect((await storedById(ws)).size).toBe(ROWS_PER_INSERT);
    const oneOver = toRows(Array.from({ length: ROWS_PER_INSERT + 1 }, record), CAPTURE);
    await insertRows(env.DB, oneOver, ROWS_PER_INSERT);
    expect((await storedById(ws)).size).toBe(2 * ROWS_PER_INSERT + 1);
  });

  it("a batch with one row that cannot be stored stores none of its rows", async () => {
    const ws = (await createWorkspace()).uid;
    const rows = toRows(
      [runRecord(ws), runRecord(ws), runRecord("ws_missing"), runRecord(ws), runRecord(ws)],
      CAPTURE,
    );
    await expect(insertRows(env.DB, rows)).rejects.toThrow(/FOREIGN KEY/i);
    expect((await storedById(ws)).size).toBe(0);
  });
});
