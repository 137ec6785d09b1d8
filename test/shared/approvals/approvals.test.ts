// The approvals API: listing and deciding (the MCP side is in test/workers/gateway/approvals.test.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApproval } from "../../../shared/approvals";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";

async function seeded() {
  const ws = (await createWorkspace()).uid;
  const { key: reader } = await createKey(ws, ["hooks:read"]);
  const { key: writer } = await createKey(ws, ["hooks:read", "hooks:write"], "approver");
  const make = (text: string) =>
    createApproval(env.DB, {
      workspaceUid: ws,
      toolUid: "tool_x",
      toolName: "echo",
      revisionId: "rev_x",
      source: "hook",
      reason: "needs a look",
      arguments: { text },
      publicArguments: { text },
      keyId: "key_x",
      actor: "agent",
      requestId: "req",
      now: Date.now(),
    });
  return { ws, reader, writer, make };
}

describe("approvals API", () => {
  it("lists pending approvals by default, others by ?status=", async () => {
    const { ws, reader, writer, make } = await seeded();
    const a = await make("a");
    const b = await make("b");
    const list = await json<{ items: { id: string; status: string }[] }>(
      await call("GET", `/v1/workspaces/${ws}/approvals`, { key: reader }),
      200,
    );
    expect(list.items.map((i) => i.id)).toEqual([b.id, a.id]);
    await json(await call("POST", `/v1/workspaces/${ws}/approvals/${a.id}/approve`, { key: writer }), 200);
    await json(await call("POST", `/v1/workspaces/${ws}/approvals/${b.id}/deny`, { key: writer }), 200);
    const approved = await json<{ items: { id: string; decidedBy: string }[] }>(
      await call("GET", `/v1/workspaces/${ws}/approvals?status=approved`, { key: reader }),
      200,
    );
    expect(approved.items).toMatchObject([{ id: a.id, decidedBy: "approver" }]);
    const denied = await json<{ items: { id: string }[] }>(
      await call("GET", `/v1/workspaces/${ws}/approvals?status=denied`, { key: reader }),
      200,
    );
    expect(denied.items.map((i) => i.id)).toEqual([b.id]);
    expect(
      (
        await json<{ items: unknown[] }>(
          await call("GET", `/v1/workspaces/${ws}/approvals`, { key: reader }),
          200,
        )
      ).items,
    ).toEqual([]);
    await expectProblem(
      await call("GET", `/v1/workspaces/${ws}/approvals?status=odd`, { key: reader }),
      400,
      "invalid_request",
    );
  });

  it("deciding needs hooks:write", async () => {
    const { ws, reader, make } = await seeded();
    const a = await make("a");
    const refused = await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/approvals/${a.id}/approve`, { key: reader }),
      403,
      "forbidden",
    );
    expect(refused.code).toBe("forbidden");
  });

  it("only a pending approval can be decided: deciding twice is 409", async () => {
    const { ws, writer, make } = await seeded();
    const a = await make("a");
    await json(await call("POST", `/v1/workspaces/${ws}/approvals/${a.id}/approve`, { key: writer }), 200);
    const again = await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/approvals/${a.id}/deny`, { key: writer }),
      409,
      "conflict",
    );
    expect(again).toMatchObject({ status: 409 });
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/approvals/apr_nope/approve`, { key: writer }),
      404,
      "not_found",
    );
  });

  it("an expired approval cannot be approved", async () => {
    const { ws, writer, make } = await seeded();
    const a = await make("a");
    await env.DB.prepare("update approvals set expires_at = ? where id = ?")
      .bind(new Date(Date.now() - 1).toISOString(), a.id)
      .run();
    const body = await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/approvals/${a.id}/approve`, { key: writer }),
      409,
      "conflict",
    );
    expect(body).toMatchObject({ status: 409 });
  });
});
