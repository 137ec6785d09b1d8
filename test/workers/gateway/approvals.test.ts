// One-call approvals on the MCP path: binding, single use, and every refusal.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { APPROVAL_ADAPTER, SUFFIX_ADAPTER } from "./adapters";
import {
  call,
  callTool,
  connect,
  createKey,
  deploy,
  json,
  refusalOf,
  runs,
  setup,
  type Gw,
  riskyEchoKey,
} from "./harness";

const approvalsPath = (g: Gw) => `/v1/workspaces/${g.ws}/approvals`;
const decide = (g: Gw, id: string, decision: "approve" | "deny") =>
  call("POST", `${approvalsPath(g)}/${id}/${decision}`, { key: g.writeKey });
const withApproval = (id: string) => ({ "rayrun/approvalId": id });

interface ApprovalBody {
  id: string;
  status: string;
  revisionId: string | null;
  arguments: unknown;
  callHash: string;
  reason: string;
  source: string;
}

/** A workspace whose echo adapter asks for approval, and one pending approval from a call of { text: "hi" }. */
async function pending() {
  const g = await setup();
  const { revisionId } = await deploy(g, "echo", APPROVAL_ADAPTER(), { testArgs: { text: "x" } });
  const client = await connect(g);
  const meta = refusalOf(await callTool(client, "echo", { text: "hi" }));
  expect(meta).toMatchObject({ code: "approval_required", message: "Echo needs a human to look at it" });
  const approvalId = meta.approvalId ?? "";
  expect(approvalId).toMatch(/^apr_/);
  return { g, client, revisionId, approvalId };
}

describe("approvals", () => {
  it("an approval binds the active revision and the exact transformed call, and nothing reaches the upstream", async () => {
    const { g, revisionId, approvalId } = await pending();
    expect(await g.upstream.calls()).toEqual([]);
    const list = await json<{ items: ApprovalBody[] }>(
      await call("GET", approvalsPath(g), { key: g.writeKey }),
      200,
    );
    expect(list.items).toHaveLength(1);
    const [item] = list.items;
    expect(item).toMatchObject({
      id: approvalId,
      status: "pending",
      revisionId,
      source: "hook",
      arguments: { text: "hi!" },
      reason: "Echo needs a human to look at it",
    });
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(JSON.stringify({ arguments: { text: "hi!" }, tool: g.tools.echo })),
    );
    expect(item?.callHash).toBe(
      [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    );
    const records = await runs(g);
    expect(records.map((r) => [r.stage, r.outcome])).toEqual([["before", "approval"]]);
  });

  it("approved via the API, the repeated call dispatches the stored transformed call once", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    const result = await callTool(client, "echo", { text: "hi" }, withApproval(approvalId));
    expect(result).toMatchObject({ content: [{ type: "text", text: "hi!" }] });
    expect(await g.upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "hi!" }, authorization: null },
    ]);
    const used = await json<ApprovalBody>(
      await call("GET", `${approvalsPath(g)}/${approvalId}`, { key: g.writeKey }),
      200,
    );
    expect(used.status).toBe("used");
  });

  it("a second use of an approval is refused", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    expect((await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).isError).toBeFalsy();
    expect(refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).code).toBe(
      "approval_used",
    );
    expect(await g.upstream.calls()).toHaveLength(1);
  });

  it("concurrent repeats of one approval dispatch exactly once", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    const results = await Promise.all(
      [1, 2, 3].map(() => callTool(client, "echo", { text: "hi" }, withApproval(approvalId))),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(await g.upstream.calls()).toHaveLength(1);
  });

  it("an approval under a revision that is no longer active is refused", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    await deploy(g, "echo", SUFFIX_ADAPTER(" v2"), { testArgs: { text: "x" } });
    const meta = refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval(approvalId)));
    expect(meta).toMatchObject({ code: "revision_changed", reason: "approval_bound_revision" });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("a repeated call with different arguments is refused (and leaves the approval usable)", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    expect(refusalOf(await callTool(client, "echo", { text: "other" }, withApproval(approvalId))).code).toBe(
      "approval_mismatch",
    );
    expect(await g.upstream.calls()).toEqual([]);
    expect((await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).isError).toBeFalsy();
  });

  it("another key cannot use the approval", async () => {
    const { g, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "other" });
    const other = await connect(g, key);
    expect(refusalOf(await callTool(other, "echo", { text: "hi" }, withApproval(approvalId))).code).toBe(
      "approval_mismatch",
    );
  });

  it("a denied approval is refused", async () => {
    const { g, client, approvalId } = await pending();
    expect(await json<ApprovalBody>(await decide(g, approvalId, "deny"), 200)).toMatchObject({
      status: "denied",
    });
    expect(refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).code).toBe(
      "approval_denied",
    );
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("a pending approval cannot be used yet", async () => {
    const { g, client, approvalId } = await pending();
    expect(refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).code).toBe(
      "approval_pending",
    );
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an expired approval is refused, and cannot be approved any more", async () => {
    const { g, client, approvalId } = await pending();
    await json(await decide(g, approvalId, "approve"), 200);
    await env.DB.prepare("update approvals set expires_at = ? where id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), approvalId)
      .run();
    expect(refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval(approvalId))).code).toBe(
      "approval_expired",
    );
    expect(await g.upstream.calls()).toEqual([]);
    const expired = await json<{ items: ApprovalBody[] }>(
      await call("GET", `${approvalsPath(g)}?status=expired`, { key: g.writeKey }),
      200,
    );
    expect(expired.items.map((a) => a.id)).toEqual([approvalId]);
  });

  it("an unknown approval id is refused", async () => {
    const g = await setup();
    const client = await connect(g);
    expect(refusalOf(await callTool(client, "echo", { text: "hi" }, withApproval("apr_nope"))).code).toBe(
      "approval_not_found",
    );
  });

  it("a tool at or above the profile's approval risk needs approval without any adapter", async () => {
    const g = await setup();
    const key = await riskyEchoKey(g);
    const client = await connect(g, key);
    // medium risk (the default) stays below the threshold.
    expect((await callTool(client, "search_release_notes", { q: "x" })).isError).toBeFalsy();
    const meta = refusalOf(await callTool(client, "echo", { text: "risky" }));
    expect(meta.code).toBe("approval_required");
    expect(meta.message).toContain("risk high");
    const approvalId = meta.approvalId ?? "";
    await json(await decide(g, approvalId, "approve"), 200);
    expect(await callTool(client, "echo", { text: "risky" }, withApproval(approvalId))).toMatchObject({
      content: [{ text: "risky" }],
    });
    expect((await g.upstream.calls()).map((c) => c.tool)).toEqual(["search_release_notes", "echo"]);
  });
});
