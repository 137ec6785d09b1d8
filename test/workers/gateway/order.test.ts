// The five steps of the tool-call path, each tested in its place; every
// refusal is shown never to reach the upstream (its recorded calls).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clearLeases } from "../../../shared/lease/view";
import { pipelineFaults } from "../../../workers/gateway/tool-call/call-types";
import { LIMITS } from "../../../shared/limits";
import {
  AFTER_MARKER_ADAPTER,
  BAD_UPSTREAM_ARGS_ADAPTER,
  CONTINUE_ADAPTER,
  LOOP_ADAPTER,
  REJECT_ADAPTER,
  SEED_ADAPTER,
  SUFFIX_ADAPTER,
  TOP_HIT_ADAPTER,
} from "./adapters";
import { call, callTool, connect, createKey, deploy, json, refusalOf, runs, setup } from "./harness";

describe("step 1: access, before any hook", () => {
  it("a blocked tool never reaches the upstream, even when its adapter returns continue", async () => {
    const g = await setup();
    await deploy(g, "echo", CONTINUE_ADAPTER, { testArgs: { text: "x" } });
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, {
        body: { blockedTools: ["echo"] },
      }),
      200,
    );
    const client = await connect(g);
    const meta = refusalOf(await callTool(client, "echo", { text: "hi" }));
    expect(meta).toMatchObject({ code: "access_blocked", reason: "tool_blocked" });
    expect(await g.upstream.calls()).toEqual([]);
    // The adapter never ran: the only record is the pipeline's refusal.
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code])).toEqual([
      ["pipeline", "refused", "access_blocked"],
    ]);
  });

  it("a tool outside the key's allowed list is refused; blocking by tool uid works too", async () => {
    const g = await setup();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/readonly`, {
        body: { allowedTools: ["search_release_notes", g.tools.echo], blockedTools: [g.tools.echo] },
      }),
      200,
    );
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "ro", profile: "readonly" });
    const client = await connect(g, key);
    expect(refusalOf(await callTool(client, "always_fails", {}))).toMatchObject({
      code: "access_blocked",
      reason: "not_allowed",
    });
    expect(refusalOf(await callTool(client, "echo", { text: "x" }))).toMatchObject({
      code: "access_blocked",
      reason: "tool_blocked",
    });
    expect(await g.upstream.calls()).toEqual([]);
    // Other keys (default profile) are not affected.
    const open = await connect(g);
    expect((await callTool(open, "echo", { text: "x" })).isError).toBeFalsy();
  });

  it("a tool in review_required is refused until its definition is accepted", async () => {
    const g = await setup();
    await g.upstream.variant("v2");
    await call("POST", `/v1/workspaces/${g.ws}/services/${g.serviceUid}/refresh`);
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "x" }))).toMatchObject({
      code: "review_required",
    });
    expect(await g.upstream.calls()).toEqual([]);
    await json(
      await call("POST", `/v1/workspaces/${g.ws}/tools/${g.tools.echo}/review/accept`, { body: {} }),
      200,
    );
    expect((await callTool(client, "echo", { text: "x", loud: true })).isError).toBeFalsy();
  });

  it("a tool removed upstream is refused as unavailable", async () => {
    const g = await setup();
    await g.upstream.hide(["echo"]);
    await call("POST", `/v1/workspaces/${g.ws}/services/${g.serviceUid}/refresh`);
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "x" }))).toMatchObject({
      code: "tool_unavailable",
      reason: "tool_removed",
    });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("a tool of a deleted service is refused as unavailable", async () => {
    const g = await setup();
    await json(await call("DELETE", `/v1/workspaces/${g.ws}/services/${g.serviceUid}`), 200);
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "x" }))).toMatchObject({
      code: "tool_unavailable",
      reason: "service_deleted",
    });
  });

  it("missing upstream authorization is refused (the service names a secret that is not set)", async () => {
    const g = await setup({ secret: { name: "UPSTREAM_TOKEN", value: "s3cret" } });
    expect((await call("DELETE", `/v1/workspaces/${g.ws}/secrets/UPSTREAM_TOKEN`)).status).toBe(204);
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "x" }))).toMatchObject({
      code: "upstream_unauthorized",
    });
    expect(await g.upstream.calls()).toEqual([]);
  });
});

describe("step 2: public arguments, then before", () => {
  it("public arguments are validated against the public input schema before the adapter runs", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const client = await connect(g);
    // The upstream's own argument name is not part of the public contract.
    const meta = refusalOf(await callTool(client, "search_release_notes", { q: "v2" }));
    expect(meta.code).toBe("public_arguments_invalid");
    expect(await g.upstream.calls()).toEqual([]);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code])).toEqual([
      ["pipeline", "refused", "public_arguments_invalid"],
    ]);
  });

  it("a call whose adapter rewrites arguments reaches the upstream with the rewritten arguments", async () => {
    const g = await setup();
    const { revisionId } = await deploy(g, "search_release_notes", SEED_ADAPTER, {
      testArgs: { query: "x" },
      config: { prefix: "notes: " },
    });
    const client = await connect(g);
    await client.listTools();
    const result = await callTool(client, "search_release_notes", { query: "v2" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      items: [
        { title: "Release notes matching notes: v2", score: 0.9 },
        { title: "Older release", score: 0.4 },
      ],
    });
    expect(await g.upstream.calls()).toEqual([
      { tool: "search_release_notes", arguments: { q: "notes: v2" }, authorization: null },
    ]);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.channel, r.outcome, r.revision_id])).toEqual([
      ["before", "active", "continue", revisionId],
      ["after", "active", "return", revisionId],
    ]);
    expect(records[0]?.request_id).toBe(result._meta?.["rayrun/requestId"]);
    expect(JSON.parse(records[0]?.details ?? "{}")).toMatchObject({
      logs: [{ level: "info", message: "Preparing search", data: { query: "v2" } }],
      arguments: { query: "v2" },
      result: { q: "notes: v2" },
    });
  });

  it("a rejected call never reaches the upstream and carries the hook's reason and message", async () => {
    const g = await setup();
    const { revisionId } = await deploy(g, "echo", REJECT_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    const meta = refusalOf(await callTool(client, "echo", { text: "bad" }));
    expect(meta).toEqual({
      code: "rejected",
      reason: "bad_text",
      message: "Echoing bad text is not allowed.",
    });
    expect(await g.upstream.calls()).toEqual([]);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.revision_id])).toEqual([
      ["before", "reject", revisionId],
    ]);
    expect(JSON.parse(records[0]?.details ?? "{}")).toMatchObject({
      reason: "bad_text",
      message: "Echoing bad text is not allowed.",
    });
  });

  it("a hostile adapter (infinite loop) fails closed with hook_timeout and the next call works", async () => {
    const g = await setup();
    await deploy(g, "echo", LOOP_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "loop" })).code).toBe("hook_timeout");
    expect(await g.upstream.calls()).toEqual([]);
    const next = await callTool(client, "echo", { text: "fine" });
    expect(next).toMatchObject({ content: [{ type: "text", text: "fine" }] });
    expect(await g.upstream.calls()).toHaveLength(1);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code])).toEqual([
      ["before", "error", "hook_timeout"],
      ["before", "continue", null],
    ]);
  });
});

describe("step 3: upstream schema and size bound", () => {
  it("transformed arguments that break the upstream schema fail closed", async () => {
    const g = await setup();
    const { revisionId } = await deploy(g, "echo", BAD_UPSTREAM_ARGS_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "break" })).code).toBe(
      "upstream_arguments_invalid",
    );
    expect(await g.upstream.calls()).toEqual([]);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code, r.revision_id])).toEqual([
      ["before", "error", "upstream_arguments_invalid", revisionId],
    ]);
  });

  it("limit: upstreamArgumentsBytes — exactly at the limit passes, one byte over is refused", async () => {
    const g = await setup();
    const client = await connect(g);
    const envelope = JSON.stringify({ text: "" }).length;
    const at = await callTool(client, "echo", { text: "x".repeat(LIMITS.upstreamArgumentsBytes - envelope) });
    expect(at.isError).toBeFalsy();
    const over = await callTool(client, "echo", {
      text: "x".repeat(LIMITS.upstreamArgumentsBytes - envelope + 1),
    });
    expect(refusalOf(over).code).toBe("call_too_large");
    expect(await g.upstream.calls()).toHaveLength(1);
  });
});

/** The active `before` runs a call's request id recorded, as "revision outcome". */
async function activeBefores(
  g: Awaited<ReturnType<typeof setup>>,
  result: { _meta?: Record<string, unknown> },
) {
  const id = result._meta?.["rayrun/requestId"];
  return (await runs(g))
    .filter((row) => row.request_id === id && row.stage === "before" && row.channel === "active")
    .map((row) => `${row.revision_id} ${row.outcome}`)
    .toSorted();
}

/** A deploy of `revisionId` that returns to its caller between the call's stages and its dispatch. */
function deployBeforeDispatch(ws: string, target: string, revisionId: string): void {
  pipelineFaults.beforeDispatch = async () => {
    pipelineFaults.beforeDispatch = undefined;
    await env.WORKSPACE.getByName(ws).setPointer(target, "active", revisionId, 100);
  };
}

describe("step 4: recheck, authorize, one upstream call", () => {
  afterEach(() => {
    vi.useRealTimers();
    pipelineFaults.beforeDispatch = undefined;
  });

  it("revision_changed: the active pointer moved between the stages (on a view fetched for the call) and dispatch", async () => {
    const g = await setup();
    const first = await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const second = await deploy(g, "echo", SUFFIX_ADAPTER(" two"), {
      testArgs: { text: "x" },
      channel: "shadow",
    });
    const target = `tool:${g.tools.echo}`;
    const stub = env.WORKSPACE.getByName(g.ws);
    // The deploy returns (every lease older than it has ended) before the call dispatches.
    deployBeforeDispatch(g.ws, target, second.revisionId);
    const client = await connect(g);
    // As on a new isolate: the call fetches its view.
    clearLeases();
    const meta = refusalOf(await callTool(client, "echo", { text: "hi" }));
    expect(meta.code).toBe("revision_changed");
    expect(await g.upstream.calls()).toEqual([]);
    expect((await stub.getPointers(target)).active?.revisionId).toBe(second.revisionId);
    // The next call runs the new active revision.
    expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({ content: [{ text: "hi two" }] });
    expect(first.revisionId).not.toBe(second.revisionId);
  });

  it("a stale pointer view re-runs the stages with the current revision instead of refusing", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const client = await connect(g);
    expect(await callTool(client, "echo", { text: "a" })).toMatchObject({ content: [{ text: "a one" }] });
    await deploy(g, "echo", SUFFIX_ADAPTER(" two"), { testArgs: { text: "x" } });
    expect(await callTool(client, "echo", { text: "b" })).toMatchObject({ content: [{ text: "b two" }] });
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([
      { text: "a one" },
      { text: "b two" },
    ]);
  });

  it("a deploy that returns while a call runs on a held lease re-runs its stages with the new revision; the first run is logged as superseded", async () => {
    const g = await setup();
    const one = await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const two = await deploy(g, "echo", SUFFIX_ADAPTER(" two"), {
      testArgs: { text: "x" },
      channel: "shadow",
    });
    const client = await connect(g);
    const befores = (result: { _meta?: Record<string, unknown> }) => activeBefores(g, result);
    // The first call takes the lease; the next one runs its stages on it without a trip. The
    // isolate's clock moves only as the test says, so the lease still holds however slow the machine.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    await callTool(client, "echo", { text: "warm" });
    vi.setSystemTime(start + 1);
    pipelineFaults.beforeDispatch = async () => {
      pipelineFaults.beforeDispatch = undefined;
      await env.WORKSPACE.getByName(g.ws).setPointer(`tool:${g.tools.echo}`, "active", two.revisionId, 100);
      // The deploy returned after the lease ended; the isolate's clock shows that from this I/O on.
      vi.setSystemTime(start + 10_000);
    };
    const raced = await callTool(client, "echo", { text: "r" });
    vi.useRealTimers();
    expect(raced).toMatchObject({ content: [{ text: "r two" }] });
    expect(await befores(raced)).toEqual(
      [`${one.revisionId} superseded`, `${two.revisionId} continue`].toSorted(),
    );
  });

  it("after a deploy, a rollback and a reset have returned, the next call runs only the current revision's stages", async () => {
    const g = await setup();
    const one = await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const client = await connect(g);
    const befores = (result: { _meta?: Record<string, unknown> }) => activeBefores(g, result);
    await callTool(client, "echo", { text: "warm" });
    const two = await deploy(g, "echo", SUFFIX_ADAPTER(" two"), { testArgs: { text: "x" } });
    const deployed = await callTool(client, "echo", { text: "a" });
    expect(deployed).toMatchObject({ content: [{ text: "a two" }] });
    expect(await befores(deployed)).toEqual([`${two.revisionId} continue`]);

    const hook = `/v1/workspaces/${g.ws}/tools/${g.tools.echo}/hook`;
    await json(
      await call("POST", `${hook}/rollback`, { key: g.writeKey, body: { revision: one.revisionId } }),
      200,
    );
    const rolledBack = await callTool(client, "echo", { text: "b" });
    expect(rolledBack).toMatchObject({ content: [{ text: "b one" }] });
    expect(await befores(rolledBack)).toEqual([`${one.revisionId} continue`]);

    await json(await call("POST", `${hook}/reset`, { key: g.writeKey }), 200);
    const reset = await callTool(client, "echo", { text: "c" });
    expect(reset).toMatchObject({ content: [{ text: "c" }] });
    expect(await befores(reset)).toEqual([]);
  });

  it("a revoked key is refused at admission with 401 on its next call: no hook runs, nothing is logged or sent", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER(" one"), { testArgs: { text: "x" } });
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "before" })).isError).toBeFalsy();
    const logged = (await runs(g)).length;
    await json(await call("DELETE", `/v1/workspaces/${g.ws}/keys/${g.callKeyId}`), 200);
    await expect(callTool(client, "echo", { text: "after" })).rejects.toThrow(/401/);
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "before one" }]);
    expect((await runs(g)).length).toBe(logged);
    expect(await env.WORKSPACE.getByName(g.ws).isKeyRevoked(g.callKeyId)).toBe(true);
  });

  it("key_revoked: a key revoked between a call's admission and its dispatch is refused before the upstream", async () => {
    const g = await setup();
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "warm" })).isError).toBeFalsy();
    pipelineFaults.beforeDispatch = async () => {
      pipelineFaults.beforeDispatch = undefined;
      await env.WORKSPACE.getByName(g.ws).revokeKey(g.callKeyId);
    };
    const meta = refusalOf(await callTool(client, "echo", { text: "raced" }));
    expect(meta.code).toBe("key_revoked");
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "warm" }]);
  });

  it("exactly one upstream tools/call per dispatched call", async () => {
    const g = await setup();
    const client = await connect(g);
    await callTool(client, "echo", { text: "one" });
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "one" }, authorization: null },
    ]);
  });
});

describe("step 5: after, output validation, projection", () => {
  it("upstream tool errors are returned as the upstream's and after does not run", async () => {
    const g = await setup();
    await deploy(g, "always_fails", AFTER_MARKER_ADAPTER, { testArgs: {} });
    const client = await connect(g);
    const result = await callTool(client, "always_fails", { reason: "boom" });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "upstream failure: boom" }],
    });
    expect(result._meta?.["rayrun/error"]).toBeUndefined();
    expect(await g.upstream.calls()).toHaveLength(1);
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code])).toEqual([
      ["before", "continue", null],
      ["after", "passed", "upstream_error"],
    ]);
  });

  it("after's return replaces structuredContent and the text content is regenerated from it", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", TOP_HIT_ADAPTER, {
      testResult: { items: [{ title: "a", score: 1 }] },
    });
    const client = await connect(g);
    const result = await callTool(client, "search_release_notes", { q: "v3" });
    const items = [{ title: "Release notes matching v3", score: 0.9 }];
    expect(result.structuredContent).toEqual({ items });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ items }) }]);
  });

  it("without structuredContent after sees { content } and its returned content replaces the upstream's", async () => {
    const g = await setup();
    await deploy(g, "echo", AFTER_MARKER_ADAPTER, { testArgs: { text: "x" } });
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "hi" })).content).toEqual([
      { type: "text", text: "after ran" },
    ]);
  });

  it("response projection keeps only the configured JSON pointers of structuredContent", async () => {
    const g = await setup();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/tools/${g.tools.search_release_notes}/gateway`, {
        body: { projection: ["/items/0"] },
      }),
      200,
    );
    const client = await connect(g);
    const result = await callTool(client, "search_release_notes", { q: "p" });
    const projected = { items: [{ title: "Release notes matching p", score: 0.9 }] };
    expect(result.structuredContent).toEqual(projected);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(projected) }]);
  });

  it("an after result that breaks the public output schema fails closed", async () => {
    const g = await setup();
    const bad = `export default defineToolAdapter({ apiVersion: "rayrun.hooks/v1",
      after: ({ result }) => result.items.length === 1 ? { action: "return", result } : { action: "return", result: { items: [1] } } });`;
    await deploy(g, "search_release_notes", bad, { testResult: { items: [{ title: "a", score: 1 }] } });
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "search_release_notes", { q: "x" })).code).toBe(
      "public_output_invalid",
    );
    // It was dispatched (the failure is after the call), once.
    expect(await g.upstream.calls()).toHaveLength(1);
  });
});
