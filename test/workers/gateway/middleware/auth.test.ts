// Admission's refusals name what is wrong: a key of another workspace is told
// so (the same answer whether or not the workspace it named exists), and only
// a key of this workspace without tools:call is told about the scope.
import { describe, expect, it } from "vitest";
import { gateway } from "../../../../workers/gateway/app";
import { createKey, type Gw, setup } from "../harness";
import { env } from "cloudflare:workers";

const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };

async function refusal(
  g: Gw,
  ws: string,
  key: string,
): Promise<{ status: number; code: unknown; detail: unknown }> {
  const res = await gateway.fetch(
    new Request(`http://gateway.test/mcp/${ws}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify(list),
    }),
    env,
    g.ctx,
  );
  const body = await res.json<{ code?: unknown; detail?: unknown }>();
  return { status: res.status, code: body.code, detail: body.detail };
}

describe("admission's refusals", () => {
  it("a key of another workspace gets one forbidden answer that blames no scope, for an existing and an unknown workspace alike", async () => {
    const mine = await setup();
    const other = await setup();
    const existing = await refusal(mine, other.ws, mine.callKey);
    const unknown = await refusal(mine, "ws_doesnotexist", mine.callKey);
    expect(existing).toMatchObject({ status: 403, code: "forbidden" });
    expect(String(existing.detail)).toContain("belongs to another workspace");
    expect(String(existing.detail)).not.toContain("scope");
    expect(String(unknown.detail)).toBe(String(existing.detail).replaceAll(other.ws, "ws_doesnotexist"));
  });

  it("a key of this workspace without tools:call is told about the scope", async () => {
    const g = await setup();
    const { key } = await createKey(g.ws, { scopes: ["hooks:read"], actor: "reader" });
    const answer = await refusal(g, g.ws, key);
    expect(answer).toMatchObject({ status: 403, code: "forbidden" });
    expect(String(answer.detail)).toContain("tools:call scope");
  });
});
