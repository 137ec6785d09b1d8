// The isolate's catalog copy: every write in the catalog families takes effect
// on the next call, and a write that lands while a call is in flight (after the
// call read its copy, before dispatch) re-runs the call on a fresh read, so it
// never reaches the upstream under the old decision.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { pipelineFaults } from "../../../../workers/gateway/tool-call/call-types";
import { call, callTool, connect, json, refusalOf, setup } from "../harness";

const catalogVersion = (ws: string) => env.WORKSPACE.getByName(ws).catalogVersion();

afterEach(() => {
  delete pipelineFaults.beforeDispatch;
});

describe("catalog cache", () => {
  it("a write to an access profile bumps the workspace's catalog version; a refused write does not", async () => {
    const g = await setup();
    const before = await catalogVersion(g.ws);
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, {
        body: { blockedTools: ["echo"] },
      }),
      200,
    );
    expect(await catalogVersion(g.ws)).toBe(before + 1);
    const refused = await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, {
      body: { blockedTools: 7 },
    });
    expect(refused.status).toBe(400);
    expect(await catalogVersion(g.ws)).toBe(before + 1);
  });

  it("a block written after the isolate cached the catalog applies to the next call", async () => {
    const g = await setup();
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "one" })).isError).toBeFalsy();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, {
        body: { blockedTools: ["echo"] },
      }),
      200,
    );
    expect(refusalOf(await callTool(client, "echo", { text: "two" }))).toMatchObject({
      code: "access_blocked",
    });
    // And lifting it applies too, although the refusal was decided on a cached copy.
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, { body: { blockedTools: [] } }),
      200,
    );
    expect((await callTool(client, "echo", { text: "three" })).isError).toBeFalsy();
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "one" }, { text: "three" }]);
  });

  it("a block that lands while a call is in flight re-runs the call on a fresh read: it never reaches the upstream", async () => {
    const g = await setup();
    const client = await connect(g);
    await callTool(client, "echo", { text: "warm" });
    let blocked = false;
    pipelineFaults.beforeDispatch = async () => {
      if (blocked) return;
      blocked = true;
      await json(
        await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/default`, {
          body: { blockedTools: ["echo"] },
        }),
        200,
      );
    };
    expect(refusalOf(await callTool(client, "echo", { text: "raced" }))).toMatchObject({
      code: "access_blocked",
    });
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "warm" }]);
  });
});
