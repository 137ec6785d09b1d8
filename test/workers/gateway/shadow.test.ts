// Shadow revisions: after the response, never changing it, never a second upstream call.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { shadowFaults } from "../../../workers/gateway/tool-call/shadow";
import { REJECT_ADAPTER, SEED_ADAPTER, SUFFIX_ADAPTER, TOP_HIT_ADAPTER } from "./adapters";
import { callTool, connect, deploy, refusalOf, runs, setup, type RunRow } from "./harness";

afterEach(() => {
  shadowFaults.beforeRun = undefined;
});

const shape = (rows: Pick<RunRow, "stage" | "channel" | "outcome" | "shadow_differed">[]) =>
  rows
    .map((r) => [
      r.stage,
      r.channel,
      r.outcome,
      r.shadow_differed === null ? null : Boolean(r.shadow_differed),
    ])
    .toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("shadow runs", () => {
  it("run after the response, never change it, never call the upstream again, and record that they differed", async () => {
    const g = await setup();
    const active = await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const shadow = await deploy(g, "echo", SUFFIX_ADAPTER(" two"), {
      testArgs: { text: "x" },
      channel: "shadow",
    });
    const held = Promise.withResolvers<void>();
    shadowFaults.beforeRun = () => held.promise;
    const client = await connect(g);
    // The response arrives while the shadow run is still held back: it is not on the response path.
    const result = await callTool(client, "echo", { text: "hi" });
    expect(result).toMatchObject({ content: [{ type: "text", text: "hi one" }] });
    const early = await env.DB.prepare(
      "select count(*) as n from hook_runs where workspace_uid = ? and channel = 'shadow'",
    )
      .bind(g.ws)
      .first<{ n: number }>();
    expect(early?.n).toBe(0);
    held.resolve();
    const records = await runs(g);
    expect(shape(records)).toEqual(
      shape([
        { stage: "before", channel: "active", outcome: "continue", shadow_differed: null },
        { stage: "before", channel: "shadow", outcome: "continue", shadow_differed: 1 },
        { stage: "after", channel: "shadow", outcome: "passed", shadow_differed: 0 },
      ]),
    );
    const shadowBefore = records.find((r) => r.channel === "shadow" && r.stage === "before");
    expect(shadowBefore?.revision_id).toBe(shadow.revisionId);
    expect(shadowBefore?.request_id).toBe(result._meta?.["rayrun/requestId"]);
    expect(JSON.parse(shadowBefore?.details ?? "{}")).toMatchObject({ result: { text: "hi two" } });
    expect(records.find((r) => r.channel === "active")?.revision_id).toBe(active.revisionId);
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "hi one" }, authorization: null },
    ]);
  });

  it("a shadow identical to active records that it did not differ", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER(" same"), { testArgs: { text: "x" } });
    await deploy(g, "echo", SUFFIX_ADAPTER(" same"), { testArgs: { text: "y" }, channel: "shadow" });
    const client = await connect(g);
    await callTool(client, "echo", { text: "hi" });
    const shadowRows = (await runs(g)).filter((r) => r.channel === "shadow");
    expect(shadowRows.map((r) => r.shadow_differed)).toEqual([0, 0]);
  });

  it("the shadow after gets the live upstream result", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    await deploy(g, "search_release_notes", TOP_HIT_ADAPTER, {
      channel: "shadow",
      testResult: { items: [{ title: "a", score: 1 }] },
    });
    const client = await connect(g);
    const result = await callTool(client, "search_release_notes", { query: "v2" });
    expect(result.structuredContent).toMatchObject({ items: [expect.anything(), expect.anything()] });
    const records = await runs(g);
    const after = records.find((r) => r.channel === "shadow" && r.stage === "after");
    expect(after).toMatchObject({ outcome: "return", shadow_differed: 1 });
    expect(JSON.parse(after?.details ?? "{}")).toMatchObject({
      result: { items: [{ title: "Release notes matching v2", score: 0.9 }] },
    });
    // The shadow has no publicContract: under its contract the active one's public arguments are invalid.
    expect(records.find((r) => r.channel === "shadow" && r.stage === "before")).toMatchObject({
      outcome: "error",
      code: "public_arguments_invalid",
      shadow_differed: 1,
    });
    expect(await g.upstream.calls()).toHaveLength(1);
  });

  it("runs beside a refused call too, without any upstream call", async () => {
    const g = await setup();
    await deploy(g, "echo", REJECT_ADAPTER, { testArgs: { text: "x" } });
    await deploy(g, "echo", SUFFIX_ADAPTER(" ok"), { testArgs: { text: "x" }, channel: "shadow" });
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "bad" })).code).toBe("rejected");
    const records = await runs(g);
    expect(shape(records)).toEqual(
      shape([
        { stage: "before", channel: "active", outcome: "reject", shadow_differed: null },
        { stage: "before", channel: "shadow", outcome: "continue", shadow_differed: 1 },
      ]),
    );
    expect(await g.upstream.calls()).toEqual([]);
  });
});
