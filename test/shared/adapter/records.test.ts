// Run records of the tool-call path: what a step's record says, what payload
// capture adds, superseded runs, and the write after the response.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  deferRecords,
  Recorder,
  runRecord,
  stepRecord,
  writeRecords,
  type RecordScope,
} from "../../../shared/adapter/records";
import { runAdapterStep, type StepRun } from "../../../shared/adapter/steps";
import { err, ok } from "../../../shared/result";
import { writeWorkspaceConfig } from "../../../shared/config/store";
import { adapterCode, testContext } from "../sandbox/helpers";

const scope = (overrides: Partial<RecordScope> = {}): RecordScope => ({
  workspaceUid: "ws_records",
  target: "tool:tool_1",
  toolUid: "tool_1",
  toolName: "search",
  requestId: "req_1",
  payloadCapture: true,
  ...overrides,
});

const meta = { stage: "before" as const, ran: true, logs: [], fuelUsed: 120, durationMs: 1.5 };
const LOG = { level: "info" as const, message: "hello" };

async function newWorkspace(): Promise<string> {
  const uid = `ws_${crypto.randomUUID()}`;
  await env.DB.prepare("insert into workspaces (uid, name, created_by) values (?, ?, ?)")
    .bind(uid, "records", "tester")
    .run();
  return uid;
}

interface StoredRow {
  outcome: string;
  code: string | null;
  stage: string;
  request_id: string;
  details: string | null;
}

async function stored(ws: string): Promise<StoredRow[]> {
  const { results } = await env.DB.prepare(
    "select outcome, code, stage, request_id, details from hook_runs where workspace_uid = ? order by id",
  )
    .bind(ws)
    .all<StoredRow>();
  return results;
}

describe("runRecord", () => {
  it("copies the scope and input, with defaults for what the input leaves out", () => {
    const startedAt = Date.now();
    const record = runRecord(scope(), {
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: "access_blocked",
      revisionId: null,
    });
    expect(record).toEqual({
      workspaceUid: "ws_records",
      kind: "tool_adapter",
      target: "tool:tool_1",
      toolUid: "tool_1",
      toolName: "search",
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: "access_blocked",
      revisionId: null,
      requestId: "req_1",
      durationMs: 0,
      fuelUsed: 0,
      shadowDiffered: null,
      at: expect.any(String),
      details: null,
    });
    expect(Date.parse(record.at)).toBeGreaterThanOrEqual(startedAt - 1);
    expect(new Date(record.at).toISOString()).toBe(record.at);
  });

  it("captures arguments and result only under payload capture", () => {
    const input = {
      stage: "before" as const,
      channel: "active" as const,
      outcome: "continue" as const,
      code: null,
      revisionId: "rev_1",
      arguments: { query: "secret" },
      result: { q: "secret" },
      details: { message: "kept" },
    };
    expect(runRecord(scope(), input).details).toEqual({
      message: "kept",
      arguments: { query: "secret" },
      result: { q: "secret" },
    });
    expect(runRecord(scope({ payloadCapture: false }), input).details).toEqual({ message: "kept" });
  });

  it("details with nothing in them are null", () => {
    const base = {
      stage: "after" as const,
      channel: "shadow" as const,
      outcome: "return" as const,
      code: null,
    };
    expect(
      runRecord(scope({ payloadCapture: false }), { ...base, revisionId: null, result: { a: 1 } }).details,
    ).toBeNull();
    expect(runRecord(scope(), { ...base, revisionId: null, details: {} }).details).toBeNull();
  });
});

describe("stepRecord", () => {
  it("a failed step is outcome error with its code, message and logs", () => {
    const step: StepRun = {
      ...err({ code: "hook_threw", message: "Error: boom" }),
      ...meta,
      logs: [LOG],
    };
    const record = stepRecord(scope(), step, "active", "rev_1");
    expect(record).toMatchObject({
      outcome: "error",
      code: "hook_threw",
      stage: "before",
      channel: "active",
      revisionId: "rev_1",
      fuelUsed: 120,
      durationMs: 1.5,
      details: { error: "Error: boom", message: "Error: boom", logs: [LOG] },
    });
  });

  it("continue records the transformed arguments as its result; the public ones when given", () => {
    const step: StepRun = { ...ok({ action: "continue", arguments: { q: "x" } }), ...meta };
    const record = stepRecord(scope(), step, "active", "rev_1", { arguments: { query: "x" } });
    expect(record).toMatchObject({ outcome: "continue", code: null });
    expect(record.details).toEqual({ arguments: { query: "x" }, result: { q: "x" } });
    // No logs and no capture: nothing to keep.
    expect(stepRecord(scope({ payloadCapture: false }), step, "active", "rev_1").details).toBeNull();
  });

  it("approval keeps the reason, and the call under capture", () => {
    const step: StepRun = {
      ...ok({ action: "approval", arguments: { id: 1 }, reason: "Deletes data." }),
      ...meta,
    };
    expect(stepRecord(scope(), step, "active", null).details).toEqual({
      reason: "Deletes data.",
      result: { id: 1 },
    });
    expect(stepRecord(scope({ payloadCapture: false }), step, "active", null)).toMatchObject({
      outcome: "approval",
      details: { reason: "Deletes data." },
    });
  });

  it("return records the result; reject and fail record reason and message", () => {
    const returned: StepRun = {
      ...ok({ action: "return", result: { items: [] } }),
      ...meta,
      stage: "after",
    };
    expect(stepRecord(scope(), returned, "active", null)).toMatchObject({
      outcome: "return",
      stage: "after",
      details: { result: { items: [] } },
    });
    const rejected: StepRun = {
      ...ok({ action: "reject", reason: "quota", message: "Too many." }),
      ...meta,
      logs: [LOG],
    };
    expect(
      stepRecord(scope({ payloadCapture: false }), rejected, "shadow", "rev_2", { shadowDiffered: true }),
    ).toMatchObject({
      outcome: "reject",
      code: null,
      channel: "shadow",
      shadowDiffered: true,
      details: { reason: "quota", message: "Too many.", logs: [LOG] },
    });
    const failed: StepRun = {
      ...ok({ action: "fail", reason: "empty", message: "Nothing." }),
      ...meta,
      stage: "after",
    };
    expect(stepRecord(scope(), failed, "active", null)).toMatchObject({
      outcome: "fail",
      details: { reason: "empty", message: "Nothing." },
    });
  });

  it("records what a real step run did", async () => {
    const run = await runAdapterStep({
      adapter: {
        code: adapterCode(`before({ arguments: args, context }) {
          context.log.info("seen", { n: args.n });
          return { action: "continue", arguments: { n: args.n + 1 } };
        }`),
        stages: ["before"],
        publicContract: null,
      },
      stage: "before",
      upstream: {},
      context: testContext(),
      arguments: { n: 1 },
    });
    const record = stepRecord(scope(), run, "active", "rev_9");
    expect(record).toMatchObject({
      outcome: "continue",
      stage: "before",
      revisionId: "rev_9",
      fuelUsed: run.fuelUsed,
      details: { logs: [{ level: "info", message: "seen", data: { n: 1 } }], result: { n: 2 } },
    });
    expect(record.fuelUsed).toBeGreaterThan(0);
  });
});

describe("Recorder", () => {
  it("supersede marks only the records from the mark on, keeping their codes", async () => {
    const ws = await newWorkspace();
    const recorder = new Recorder({ workspaceUid: ws, payloadCapture: false });
    const s = scope({ workspaceUid: ws });
    recorder.record(
      runRecord(s, { stage: "before", channel: "active", outcome: "continue", code: null, revisionId: "r1" }),
    );
    const mark = recorder.mark();
    expect(mark).toBe(1);
    recorder.recordAll([
      runRecord(s, { stage: "before", channel: "active", outcome: "continue", code: null, revisionId: "r1" }),
      runRecord(s, {
        stage: "before",
        channel: "active",
        outcome: "error",
        code: "hook_threw",
        revisionId: "r1",
      }),
    ]);
    recorder.supersede(mark);
    recorder.record(
      runRecord(s, { stage: "before", channel: "active", outcome: "continue", code: null, revisionId: "r2" }),
    );
    const ctx = createExecutionContext();
    recorder.flush(ctx, env);
    await waitOnExecutionContext(ctx);
    expect((await stored(ws)).map((r) => `${r.outcome} ${r.code}`)).toEqual([
      "continue null",
      "superseded null",
      "superseded hook_threw",
      "continue null",
    ]);
  });

  it("a recorder with nothing recorded writes nothing and holds no work", async () => {
    const calls: Promise<unknown>[] = [];
    new Recorder({ workspaceUid: "ws_none", payloadCapture: true }).flush(
      { waitUntil: (p) => calls.push(p) },
      env,
    );
    expect(calls).toEqual([]);
  });
});

const withDetails = (ws: string, requestId: string) =>
  runRecord(scope({ workspaceUid: ws, requestId }), {
    stage: "before",
    channel: "active",
    outcome: "continue",
    code: null,
    revisionId: "rev_1",
    arguments: { query: "x" },
    details: { logs: [LOG] },
  });

describe("writing records", () => {
  it("deferRecords writes after the response, with details under payload capture", async () => {
    const ws = await newWorkspace();
    const ctx = createExecutionContext();
    deferRecords(ctx, env, { workspaceUid: ws, payloadCapture: true }, [withDetails(ws, "req_a")]);
    await waitOnExecutionContext(ctx);
    const rows = await stored(ws);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]?.details ?? "null")).toMatchObject({ arguments: { query: "x" }, logs: [LOG] });
  });

  it("without payload capture only the metadata is stored", async () => {
    const ws = await newWorkspace();
    const ctx = createExecutionContext();
    deferRecords(ctx, env, { workspaceUid: ws, payloadCapture: false }, [withDetails(ws, "req_b")]);
    await waitOnExecutionContext(ctx);
    expect(await stored(ws)).toEqual([
      { outcome: "continue", code: null, stage: "before", request_id: "req_b", details: null },
    ]);
  });

  it("a workspace whose detail policy is none keeps no details even under payload capture", async () => {
    const ws = await newWorkspace();
    const saved = await writeWorkspaceConfig(env.DB, {
      workspaceUid: ws,
      document: { detailPolicy: "none" },
      expectedVersion: 0,
      actor: "tester",
      now: new Date().toISOString(),
    });
    expect(saved.kind).toBe("saved");
    await writeRecords(env, { workspaceUid: ws, payloadCapture: true }, [withDetails(ws, "req_c")]);
    expect(await stored(ws)).toEqual([
      { outcome: "continue", code: null, stage: "before", request_id: "req_c", details: null },
    ]);
  });

  it("writeRecords writes now, before it resolves", async () => {
    const ws = await newWorkspace();
    await writeRecords(env, { workspaceUid: ws, payloadCapture: true }, [
      withDetails(ws, "req_d"),
      withDetails(ws, "req_e"),
    ]);
    expect((await stored(ws)).map((r) => r.request_id).toSorted()).toEqual(["req_d", "req_e"]);
  });
});
