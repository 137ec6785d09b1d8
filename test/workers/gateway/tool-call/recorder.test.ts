// The one Recorder of a call: its run records in the order the steps ran,
// those of stages a stale view ran marked superseded, all handed to the log
// store once, after the response, and nothing handed when nothing ran.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Recorder } from "../../../../shared/adapter/records";
import { createWorkspace } from "../../../helpers/api";
import { runRecord } from "../../../shared/logs/harness";

const outcomes = async (ws: string) =>
  (
    await env.DB.prepare("select request_id, outcome from hook_runs where workspace_uid = ? order by id")
      .bind(ws)
      .all<{ request_id: string; outcome: string }>()
  ).results.map((row) => `${row.request_id} ${row.outcome}`);

describe("Recorder", () => {
  it("keeps the steps' order, supersedes what a stale view ran, and writes once after the response", async () => {
    const ws = (await createWorkspace()).uid;
    const recorder = new Recorder({ workspaceUid: ws, payloadCapture: false });
    recorder.record(runRecord(ws, { requestId: "r1", outcome: "refused" }));
    const attempt = recorder.mark();
    recorder.record(runRecord(ws, { requestId: "r2", outcome: "continue" }));
    recorder.recordAll([
      runRecord(ws, { requestId: "r3", outcome: "error" }),
      runRecord(ws, { requestId: "r4", outcome: "return" }),
    ]);
    recorder.supersede(attempt);
    recorder.record(runRecord(ws, { requestId: "r5", outcome: "continue" }));

    const ctx = createExecutionContext();
    recorder.flush(ctx, env);
    await waitOnExecutionContext(ctx);
    expect(await outcomes(ws)).toEqual([
      "r1 refused",
      "r2 superseded",
      "r3 superseded",
      "r4 superseded",
      "r5 continue",
    ]);
  });

  it("hands nothing to the log store when the call recorded nothing", () => {
    let waited = 0;
    const ctx = { waitUntil: () => void waited++ };
    new Recorder({ workspaceUid: "ws_none", payloadCapture: false }).flush(ctx, env);
    expect(waited).toBe(0);
  });
});
