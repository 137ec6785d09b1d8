// Approvals in Code Mode: a call that needs approval throws ApprovalRequired
// and ends the execution naming the approval, even when the code catches it;
// after an approver approves it through the API, the client repeats the same
// execute with `_meta["rayrun/approvalId"]` and the approved call is sent once
// with its stored transformed arguments. A second use, another call, a
// changed revision are refused as in Direct Mode.
import { describe, expect, it } from "vitest";
import { APPROVAL_ADAPTER, SUFFIX_ADAPTER } from "../adapters";
import { call, createKey, deploy, json, setup, type Gw, riskyEchoKey } from "../harness";
import { approvalEnded, callCode, callRuns, connectCode, executeApproved } from "./harness";

const approvalPath = (g: Gw, id: string) => `/v1/workspaces/${g.ws}/approvals/${id}`;
const approve = async (g: Gw, id: string) =>
  json(await call("POST", `${approvalPath(g, id)}/approve`, { key: g.writeKey }), 200);
const approvalOf = async (g: Gw, id: string) =>
  json<{ status: string; arguments: unknown; requestId: string; toolName: string }>(
    await call("GET", approvalPath(g, id), { key: g.writeKey }),
    200,
  );

/** An unhooked search, then an echo of its first title: echo's adapter asks for approval of `title + "!"`. */
const CHAIN = `
  const found = await tools.search_release_notes({ q: "v2" });
  const echoed = await tools.echo({ text: found.items[0].title });
  return { echoed: echoed.content[0].text };`;

/** A workspace whose echo needs approval, and the approval the first run of `code` ended with. */
async function pending(code: string) {
  const g = await setup();
  const { revisionId } = await deploy(g, "echo", APPROVAL_ADAPTER(), { testArgs: { text: "x" } });
  const client = await connectCode(g);
  const answer = await callCode(client, "execute", { code });
  const ended = approvalEnded(answer);
  expect(ended).toMatchObject({ code: "approval_required", tool: "echo" });
  expect(ended.approvalId).toMatch(/^apr_/);
  return { g, client, revisionId, ended, executionId: String(answer._meta?.["rayrun/requestId"]) };
}

describe("approvals in Code Mode", () => {
  it("round trip: ApprovalRequired ends the execution; approved, the repeat sends the stored transformed call once", async () => {
    const { g, client, revisionId, ended, executionId } = await pending(CHAIN);
    // The search ran; the echo needing approval never reached the upstream.
    expect((await g.upstream.calls()).map((c) => c.tool)).toEqual(["search_release_notes"]);
    expect(ended.requestId).toBe(`${executionId}.2`);
    expect(ended.message).toContain(ended.approvalId);
    expect(await approvalOf(g, ended.approvalId)).toMatchObject({
      status: "pending",
      toolName: "echo",
      arguments: { text: "Release notes matching v2!" },
      requestId: `${executionId}.2`,
    });
    await approve(g, ended.approvalId);

    const repeated = await executeApproved(client, CHAIN, ended.approvalId);
    expect(repeated.isError, JSON.stringify(repeated)).toBeFalsy();
    expect(repeated.structuredContent).toEqual({
      result: { echoed: "Release notes matching v2!" },
      logs: [],
    });
    // The code ran again from the start (a second search); echo went upstream once, with the stored arguments.
    expect((await g.upstream.calls()).map((c) => [c.tool, c.arguments])).toEqual([
      ["search_release_notes", { q: "v2" }],
      ["search_release_notes", { q: "v2" }],
      ["echo", { text: "Release notes matching v2!" }],
    ]);
    expect((await approvalOf(g, ended.approvalId)).status).toBe("used");
    // The approved call ran no hook; its records are the first run's approval request only.
    const records = await callRuns(g);
    expect(records.map((r) => [r.tool_name, r.stage, r.outcome, r.revision_id, r.request_id])).toEqual([
      ["echo", "before", "approval", revisionId, `${executionId}.2`],
    ]);
  });

  it("catching ApprovalRequired changes nothing: the execution ends with the approval, later calls never start", async () => {
    const g = await setup();
    await deploy(g, "echo", APPROVAL_ADAPTER(), { testArgs: { text: "x" } });
    const client = await connectCode(g);
    const answer = await callCode(client, "execute", {
      code: `try { await tools.echo({ text: "hi" }); } catch (e) {
               console.log("caught", [e instanceof ApprovalRequired, e instanceof ToolError, e.code, e.approvalId]);
             }
             console.log("plain", [new ToolError({ code: "rejected", message: "no" }) instanceof ApprovalRequired]);
             try { await tools.search_release_notes({ q: "after" }); } catch (e) { console.log("later", e instanceof ToolError); }
             return "swallowed";`,
    });
    const ended = approvalEnded(answer);
    expect(ended.code).toBe("approval_required");
    expect(answer.content[1]).toEqual({
      type: "text",
      text: JSON.stringify({
        logs: [
          { level: "info", message: "caught", data: [true, true, "approval_required", ended.approvalId] },
          { level: "info", message: "plain", data: [false] },
          { level: "info", message: "later", data: false },
        ],
      }),
    });
    expect(await g.upstream.calls()).toEqual([]);
    const listed = await json<{ items: { id: string }[] }>(
      await call("GET", `/v1/workspaces/${g.ws}/approvals`, { key: g.writeKey }),
      200,
    );
    expect(listed.items.map((a) => a.id)).toEqual([ended.approvalId]);
    // The next execution on the same connection runs as usual.
    expect((await callCode(client, "execute", { code: "return 1;" })).structuredContent).toEqual({
      result: 1,
      logs: [],
    });
  });

  it("a second repeat with the same approval is refused before any call runs again", async () => {
    const { g, client, ended } = await pending(CHAIN);
    await approve(g, ended.approvalId);
    expect((await executeApproved(client, CHAIN, ended.approvalId)).isError).toBeFalsy();
    const again = approvalEnded(await executeApproved(client, CHAIN, ended.approvalId));
    expect(again).toMatchObject({ code: "approval_used", approvalId: ended.approvalId });
    expect(again.tool).toBeUndefined();
    // search (first run), search + echo (the repeat), nothing for the refused second repeat.
    expect((await g.upstream.calls()).map((c) => c.tool)).toEqual([
      "search_release_notes",
      "search_release_notes",
      "echo",
    ]);
  });

  it("the same call twice in one repeat: the second use is refused and ends the execution", async () => {
    const twice = `
      await tools.echo({ text: "hi" });
      try { await tools.echo({ text: "hi" }); } catch (e) { return "caught " + e.code; }
      return "both";`;
    const { g, client, ended } = await pending(twice);
    await approve(g, ended.approvalId);
    const answer = await executeApproved(client, twice, ended.approvalId);
    const executionId = String(answer._meta?.["rayrun/requestId"]);
    expect(approvalEnded(answer)).toMatchObject({
      code: "approval_used",
      approvalId: ended.approvalId,
      tool: "echo",
      requestId: `${executionId}.2`,
    });
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "hi!" }, authorization: null },
    ]);
  });

  it("another call needing approval in the repeat ends it with a new approval; changed arguments do not use the old one", async () => {
    const { g, client, ended } = await pending(`return (await tools.echo({ text: "hi" })).content[0].text;`);
    await approve(g, ended.approvalId);
    // The approved call is not in this code: echo "changed" asks for its own approval, the old one stays unused.
    const changed = approvalEnded(
      await executeApproved(
        client,
        `return (await tools.echo({ text: "changed" })).content[0].text;`,
        ended.approvalId,
      ),
    );
    expect(changed.code).toBe("approval_required");
    expect(changed.approvalId).not.toBe(ended.approvalId);
    expect(await g.upstream.calls()).toEqual([]);
    expect((await approvalOf(g, ended.approvalId)).status).toBe("approved");
    // The approved call, then another that needs approval: the first is sent, the second ends the execution.
    const next = approvalEnded(
      await executeApproved(
        client,
        `await tools.echo({ text: "hi" }); return (await tools.echo({ text: "more" })).content[0].text;`,
        ended.approvalId,
      ),
    );
    expect(next).toMatchObject({ code: "approval_required", tool: "echo" });
    expect([ended.approvalId, changed.approvalId]).not.toContain(next.approvalId);
    expect(await approvalOf(g, next.approvalId)).toMatchObject({
      status: "pending",
      arguments: { text: "more!" },
    });
    expect((await approvalOf(g, ended.approvalId)).status).toBe("used");
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "hi!" }, authorization: null },
    ]);
  });

  it("an approval given under a revision that is no longer active is refused, even when the code catches it", async () => {
    const code = `try { return (await tools.echo({ text: "hi" })).content[0].text; } catch (e) { return "caught " + e.code; }`;
    const { g, client, ended } = await pending(code);
    await approve(g, ended.approvalId);
    await deploy(g, "echo", SUFFIX_ADAPTER(" v2"), { testArgs: { text: "x" } });
    const refused = approvalEnded(await executeApproved(client, code, ended.approvalId));
    expect(refused).toMatchObject({
      code: "revision_changed",
      reason: "approval_bound_revision",
      approvalId: ended.approvalId,
      tool: "echo",
    });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an approval not yet approved, unknown, or another key's is refused before the code runs", async () => {
    const { g, client, ended } = await pending(CHAIN);
    const before = (await g.upstream.calls()).length;
    expect(approvalEnded(await executeApproved(client, CHAIN, ended.approvalId)).code).toBe(
      "approval_pending",
    );
    expect(approvalEnded(await executeApproved(client, CHAIN, "apr_nope")).code).toBe("approval_not_found");
    await approve(g, ended.approvalId);
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "other" });
    const other = await connectCode(g, key);
    expect(approvalEnded(await executeApproved(other, CHAIN, ended.approvalId)).code).toBe(
      "approval_mismatch",
    );
    expect(await g.upstream.calls()).toHaveLength(before);
    expect((await approvalOf(g, ended.approvalId)).status).toBe("approved");
  });

  it("a tool whose risk reaches the profile's threshold needs approval from code too, without any adapter", async () => {
    const g = await setup();
    const key = await riskyEchoKey(g);
    const client = await connectCode(g, key);
    const code = `return (await tools.echo({ text: "risky" })).content[0].text;`;
    const ended = approvalEnded(await callCode(client, "execute", { code }));
    expect(ended).toMatchObject({ code: "approval_required", tool: "echo" });
    expect(ended.message).toContain("risk high");
    await approve(g, ended.approvalId);
    expect((await executeApproved(client, code, ended.approvalId)).structuredContent).toEqual({
      result: "risky",
      logs: [],
    });
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "risky" }, authorization: null },
    ]);
  });

  it("an approval id that is not a string is a JSON-RPC invalid-params error", async () => {
    const g = await setup();
    const client = await connectCode(g);
    await expect(
      client.callTool({
        name: "execute",
        arguments: { code: "return 1;" },
        _meta: { "rayrun/approvalId": 7 },
      }),
    ).rejects.toThrow(/rayrun\/approvalId.*must be a string/);
  });
});
