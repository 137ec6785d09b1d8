// Access profiles, the profile a key names, per-tool gateway settings, and key revocation telling the object.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";
import { fixture } from "../../workers/api/lifecycle/harness";

describe("access profiles", () => {
  it("PUT stores a profile and GET lists it; default is open until written", async () => {
    const ws = (await createWorkspace()).uid;
    const initial = await json<{ items: unknown[] }>(
      await call("GET", `/v1/workspaces/${ws}/access-profiles`),
      200,
    );
    expect(initial.items).toEqual([
      {
        name: "default",
        allowedTools: null,
        blockedTools: [],
        approvalRisk: null,
        updatedBy: null,
        updatedAt: null,
      },
    ]);
    const put = await json(
      await call("PUT", `/v1/workspaces/${ws}/access-profiles/agents`, {
        body: { allowedTools: ["echo"], blockedTools: ["always_fails"], approvalRisk: "medium" },
      }),
      200,
    );
    expect(put).toMatchObject({
      name: "agents",
      allowedTools: ["echo"],
      blockedTools: ["always_fails"],
      approvalRisk: "medium",
    });
    const replaced = await json(
      await call("PUT", `/v1/workspaces/${ws}/access-profiles/agents`, { body: { blockedTools: [] } }),
      200,
    );
    expect(replaced).toMatchObject({ allowedTools: null, blockedTools: [], approvalRisk: null });
    const list = await json<{ items: { name: string }[] }>(
      await call("GET", `/v1/workspaces/${ws}/access-profiles`),
      200,
    );
    expect(list.items.map((p) => p.name)).toEqual(["default", "agents"]);
  });

  it("writing a profile needs admin; reading needs hooks:read", async () => {
    const ws = (await createWorkspace()).uid;
    const { key } = await createKey(ws, ["hooks:read", "hooks:write"]);
    const refused = await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/access-profiles/x`, { key, body: {} }),
      403,
      "forbidden",
    );
    expect(refused.code).toBe("forbidden");
    const read = await json<{ items: unknown[] }>(
      await call("GET", `/v1/workspaces/${ws}/access-profiles`, { key }),
      200,
    );
    expect(read.items).toHaveLength(1);
  });

  it("rejects an invalid body and an invalid name", async () => {
    const ws = (await createWorkspace()).uid;
    const badBody = await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/access-profiles/x`, { body: { approvalRisk: "extreme" } }),
      400,
      "invalid_request",
    );
    expect(badBody.code).toBe("invalid_request");
    const badName = await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/access-profiles/${encodeURIComponent("has space")}`, {
        body: {},
      }),
      400,
      "invalid_request",
    );
    expect(badName.code).toBe("invalid_request");
  });

  it("a key names a profile at creation; an unknown profile is refused", async () => {
    const ws = (await createWorkspace()).uid;
    await expectProblem(
      await call("POST", `/v1/workspaces/${ws}/keys`, {
        body: { scopes: ["tools:call"], actor: "a", profile: "nope" },
      }),
      400,
      "invalid_request",
    );
    await json(await call("PUT", `/v1/workspaces/${ws}/access-profiles/agents`, { body: {} }), 200);
    const created = await json<{ id: string; profile: string }>(
      await call("POST", `/v1/workspaces/${ws}/keys`, {
        body: { scopes: ["tools:call"], actor: "a", profile: "agents" },
      }),
      201,
    );
    expect(created.profile).toBe("agents");
    const row = await env.DB.prepare("select profile from api_key_profiles where key_id = ?")
      .bind(created.id)
      .first();
    expect(row).toEqual({ profile: "agents" });
    const plain = await json<{ profile: string }>(
      await call("POST", `/v1/workspaces/${ws}/keys`, { body: { scopes: ["tools:call"], actor: "b" } }),
      201,
    );
    expect(plain.profile).toBe("default");
  });
});

describe("tool gateway settings", () => {
  it("risk and response projection of a tool: medium and none until set", async () => {
    const f = await fixture();
    const path = `/v1/workspaces/${f.ws}/tools/${f.toolUid}/gateway`;
    expect(await json(await call("GET", path), 200)).toEqual({
      tool: f.toolUid,
      risk: "medium",
      projection: null,
    });
    expect(
      await json(await call("PUT", path, { body: { risk: "high", projection: ["/items", ""] } }), 200),
    ).toEqual({
      tool: f.toolUid,
      risk: "high",
      projection: ["/items", ""],
    });
    await expectProblem(await call("PUT", path, { body: { projection: ["items"] } }), 400, "invalid_request");
    await expectProblem(
      await call("PUT", `/v1/workspaces/${f.ws}/tools/tool_nope/gateway`, { body: {} }),
      404,
      "not_found",
    );
  });
});

describe("key revocation", () => {
  it("revoking a key also tells the workspace's object (idempotently)", async () => {
    const ws = (await createWorkspace()).uid;
    const { id } = await createKey(ws, ["tools:call"]);
    const stub = env.WORKSPACE.getByName(ws);
    expect(await stub.isKeyRevoked(id)).toBe(false);
    await json(await call("DELETE", `/v1/workspaces/${ws}/keys/${id}`), 200);
    expect(await stub.isKeyRevoked(id)).toBe(true);
    await json(await call("DELETE", `/v1/workspaces/${ws}/keys/${id}`), 200);
    expect(await stub.isKeyRevoked(id)).toBe(true);
    await expectProblem(await call("DELETE", `/v1/workspaces/${ws}/keys/key_nope`), 404, "not_found");
  });
});
