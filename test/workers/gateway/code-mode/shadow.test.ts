// Shadow revisions beside active for calls made from code: each inner call
// runs its tool's shadow revision after its answer, records it under the
// call's own (child) request id, and never calls the upstream a second time.
import { describe, expect, it } from "vitest";
import { REJECT_ADAPTER, SUFFIX_ADAPTER } from "../adapters";
import { deploy, setup, type RunRow } from "../harness";
import { callCode, callRuns, connectCode } from "./harness";

const shape = (rows: Pick<RunRow, "request_id" | "stage" | "channel" | "outcome" | "shadow_differed">[]) =>
  rows
    .map((r) => [
      r.request_id,
      r.stage,
      r.channel,
      r.outcome,
      r.shadow_differed === null ? null : Boolean(r.shadow_differed),
    ])
    .toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("shadow revisions in Code Mode", () => {
  it("run beside active for each call from code, under the call's child request id, with one upstream call each", async () => {
    const g = await setup();
    const active = await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const shadow = await deploy(g, "echo", SUFFIX_ADAPTER(" two"), {
      testArgs: { text: "x" },
      channel: "shadow",
    });
    const client = await connectCode(g);
    const answer = await callCode(client, "execute", {
      code: `const a = await tools.echo({ text: "a" });
             const b = await tools.echo({ text: "b" });
             return [a.content[0].text, b.content[0].text];`,
    });
    // The answer is active's: the shadow never changes it.
    expect(answer.structuredContent).toEqual({ result: ["a one", "b one"], logs: [] });
    const id = String(answer._meta?.["rayrun/requestId"]);
    const records = await callRuns(g);
    expect(shape(records)).toEqual(
      shape(
        [`${id}.1`, `${id}.2`].flatMap((requestId) => [
          {
            request_id: requestId,
            stage: "before",
            channel: "active",
            outcome: "continue",
            shadow_differed: null,
          },
          {
            request_id: requestId,
            stage: "before",
            channel: "shadow",
            outcome: "continue",
            shadow_differed: 1,
          },
          { request_id: requestId, stage: "after", channel: "shadow", outcome: "passed", shadow_differed: 0 },
        ]),
      ),
    );
    const shadowBefore = records.filter((r) => r.channel === "shadow" && r.stage === "before");
    expect(shadowBefore.map((r) => r.revision_id)).toEqual([shadow.revisionId, shadow.revisionId]);
    expect(shadowBefore.map((r) => JSON.parse(r.details ?? "{}").result)).toEqual(
      expect.arrayContaining([{ text: "a two" }, { text: "b two" }]),
    );
    expect(records.filter((r) => r.channel === "active").map((r) => r.revision_id)).toEqual([
      active.revisionId,
      active.revisionId,
    ]);
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "a one" }, authorization: null },
      { tool: "echo", arguments: { text: "b one" }, authorization: null },
    ]);
  });

  it("run beside a call from code that active refuses, without any upstream call", async () => {
    const g = await setup();
    await deploy(g, "echo", REJECT_ADAPTER, { testArgs: { text: "x" } });
    await deploy(g, "echo", SUFFIX_ADAPTER(" ok"), { testArgs: { text: "x" }, channel: "shadow" });
    const client = await connectCode(g);
    const answer = await callCode(client, "execute", {
      code: `try { await tools.echo({ text: "bad" }); } catch (e) { return e.code; }`,
    });
    expect(answer.structuredContent).toEqual({ result: "rejected", logs: [] });
    const id = String(answer._meta?.["rayrun/requestId"]);
    expect(shape(await callRuns(g))).toEqual(
      shape([
        {
          request_id: `${id}.1`,
          stage: "before",
          channel: "active",
          outcome: "reject",
          shadow_differed: null,
        },
        {
          request_id: `${id}.1`,
          stage: "before",
          channel: "shadow",
          outcome: "continue",
          shadow_differed: 1,
        },
      ]),
    );
    expect(await g.upstream.calls()).toEqual([]);
  });
});
