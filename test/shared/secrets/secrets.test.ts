// Write-only workspace secrets: stored encrypted, never readable, used for upstreams.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";
import { openSecret, SECRET_VALUE_BYTES } from "../../../shared/secrets";
import { workspaceSecret } from "../../../shared/secrets/credentials";

describe("workspace secrets", () => {
  it("PUT answers 204 and the value is stored encrypted, never in plain text", async () => {
    const ws = (await createWorkspace()).uid;
    const res = await call("PUT", `/v1/workspaces/${ws}/secrets/CRM_TOKEN`, {
      body: { value: "plain-value-123" },
    });
    expect(res.status).toBe(204);
    const row = await env.DB.prepare("select * from workspace_secrets where workspace_uid = ?")
      .bind(ws)
      .first();
    expect(JSON.stringify(row)).not.toContain("plain-value-123");
    expect(row).toMatchObject({ name: "CRM_TOKEN", key_version: 1 });
    expect(await workspaceSecret(env.DB, ws, "CRM_TOKEN")).toBe("plain-value-123");
  });

  it("secrets are write-only: the list has names, no route returns a value", async () => {
    const ws = (await createWorkspace()).uid;
    await call("PUT", `/v1/workspaces/${ws}/secrets/A`, { body: { value: "va" } });
    await call("PUT", `/v1/workspaces/${ws}/secrets/B`, { body: { value: "vb" } });
    const list = await call("GET", `/v1/workspaces/${ws}/secrets`);
    const text = await list.text();
    expect(JSON.parse(text)).toMatchObject({ items: [{ name: "A" }, { name: "B" }] });
    expect(text).not.toContain("va");
    // A secret has no GET: the path takes only writes.
    const read = await call("GET", `/v1/workspaces/${ws}/secrets/A`);
    expect(read.status).toBe(405);
    expect(read.headers.get("allow")).not.toContain("GET");
    expect(await read.text()).not.toContain("va");
  });

  it("a ciphertext only opens for its own workspace and name", async () => {
    const ws = (await createWorkspace()).uid;
    await call("PUT", `/v1/workspaces/${ws}/secrets/A`, { body: { value: "va" } });
    const row = await env.DB.prepare(
      "select ciphertext, iv, key_version as keyVersion from workspace_secrets where workspace_uid = ?",
    )
      .bind(ws)
      .first<{ ciphertext: string; iv: string; keyVersion: number }>();
    if (!row) throw new Error("no row");
    expect(await openSecret(env.RAYRUN_BOOTSTRAP_KEY, ws, "A", row)).toBe("va");
    expect(await openSecret(env.RAYRUN_BOOTSTRAP_KEY, ws, "B", row)).toBeNull();
    expect(await openSecret(env.RAYRUN_BOOTSTRAP_KEY, "ws_other", "A", row)).toBeNull();
    expect(await openSecret("another-root-key", ws, "A", row)).toBeNull();
  });

  it("needs admin", async () => {
    const ws = (await createWorkspace()).uid;
    const { key } = await createKey(ws, ["hooks:read", "hooks:write", "tools:call"]);
    const put = await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/secrets/A`, { key, body: { value: "v" } }),
      403,
      "forbidden",
    );
    const list = await expectProblem(
      await call("GET", `/v1/workspaces/${ws}/secrets`, { key }),
      403,
      "forbidden",
    );
    expect([put.code, list.code]).toEqual(["forbidden", "forbidden"]);
  });

  it("value size: exactly at the limit is stored, one byte over is refused", async () => {
    const ws = (await createWorkspace()).uid;
    const at = await call("PUT", `/v1/workspaces/${ws}/secrets/A`, {
      body: { value: "x".repeat(SECRET_VALUE_BYTES) },
    });
    expect(at.status).toBe(204);
    await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/secrets/A`, {
        body: { value: "x".repeat(SECRET_VALUE_BYTES + 1) },
      }),
      400,
      "invalid_request",
    );
  });

  it("DELETE removes a secret; an unknown one is 404; bad names are refused", async () => {
    const ws = (await createWorkspace()).uid;
    await call("PUT", `/v1/workspaces/${ws}/secrets/A`, { body: { value: "v" } });
    expect((await call("DELETE", `/v1/workspaces/${ws}/secrets/A`)).status).toBe(204);
    expect(await workspaceSecret(env.DB, ws, "A")).toBeNull();
    await expectProblem(await call("DELETE", `/v1/workspaces/${ws}/secrets/A`), 404, "not_found");
    await expectProblem(
      await call("PUT", `/v1/workspaces/${ws}/secrets/${encodeURIComponent("a b")}`, {
        body: { value: "v" },
      }),
      400,
      "invalid_request",
    );
  });

  it("a service's refresh authorizes the upstream with its secret", async () => {
    const ws = (await createWorkspace()).uid;
    const id = crypto.randomUUID();
    await call("PUT", `/v1/workspaces/${ws}/secrets/TOKEN`, { body: { value: "refresh-token" } });
    const service = await json<{ uid: string }>(
      await call("POST", `/v1/workspaces/${ws}/services`, {
        body: { name: "s", url: `http://upstream.test/${id}/mcp`, authorizationSecret: "TOKEN" },
      }),
      201,
    );
    const refreshed = await json<{ added: string[] }>(
      await call("POST", `/v1/workspaces/${ws}/services/${service.uid}/refresh`),
      200,
    );
    expect(refreshed.added.length).toBeGreaterThan(0);
  });
});
