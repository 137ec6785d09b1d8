// Upstream authorization from write-only workspace secrets, and what run records keep.
import { describe, expect, it } from "vitest";
import { REJECT_ADAPTER, SNOOP_ADAPTER } from "./adapters";
import { callTool, connect, deploy, putSecret, refusalOf, runs, setup } from "./harness";

describe("upstream authorization", () => {
  it("the upstream receives the service's workspace secret as its bearer token", async () => {
    const g = await setup({ secret: { name: "UPSTREAM_TOKEN", value: "tok-123" } });
    const client = await connect(g);
    await callTool(client, "echo", { text: "hi" });
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "hi" }, authorization: "Bearer tok-123" },
    ]);
  });

  it("a rewritten secret is used from the next call on", async () => {
    const g = await setup({ secret: { name: "UPSTREAM_TOKEN", value: "old" } });
    const client = await connect(g);
    await callTool(client, "echo", { text: "1" });
    await putSecret(g.ws, "UPSTREAM_TOKEN", "new");
    await callTool(client, "echo", { text: "2" });
    expect((await g.upstream.calls()).map((c) => c.authorization)).toEqual(["Bearer old", "Bearer new"]);
  });

  it("hooks never see the secret: not in context, arguments, config or globals", async () => {
    const secret = "never-visible-to-hooks-7f3a";
    const g = await setup({ secret: { name: "UPSTREAM_TOKEN", value: secret } });
    await deploy(g, "echo", SNOOP_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    const result = await callTool(client, "echo", { text: "hi" });
    const [recorded] = await g.upstream.calls();
    // What the hook saw went upstream as the text it built; the secret only in the header.
    const seen: unknown = JSON.parse(String(recorded?.arguments.text));
    expect(seen).toMatchObject({ context: { workspaceUid: g.ws, toolName: "echo", config: {} } });
    expect(JSON.stringify(recorded?.arguments)).not.toContain(secret);
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(recorded?.authorization).toBe(`Bearer ${secret}`);
    expect(JSON.stringify(await runs(g))).not.toContain(secret);
  });
});

describe("run records", () => {
  it("details are kept only when the service's payload capture is on", async () => {
    const g = await setup({ payloadCapture: false });
    await deploy(g, "echo", REJECT_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    refusalOf(await callTool(client, "echo", { text: "bad" }));
    const [record] = await runs(g);
    expect(record).toMatchObject({ stage: "before", outcome: "reject", details: null });
  });

  it("pre-dispatch refusals are recorded even though no tool call happened", async () => {
    const g = await setup();
    const client = await connect(g);
    const envelope = JSON.stringify({ text: "" }).length;
    refusalOf(await callTool(client, "echo", { text: "x".repeat(256 * 1024 - envelope + 1) }));
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.channel, r.outcome, r.code, r.tool_name])).toEqual([
      ["pipeline", "active", "refused", "call_too_large", "echo"],
    ]);
  });
});
