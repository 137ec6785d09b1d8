// The gateway on its lease: warm calls make no trip to the workspace's home,
// and with no lease and no answer from home every route fails closed with a
// stable code, never a 5xx and never an unchecked dispatch.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clearLeases } from "../../../shared/lease/view";
import { KNOBS } from "../../../shared/knobs";
import { gateway } from "../../../workers/gateway/app";
import { pipelineFaults } from "../../../workers/gateway/tool-call/call-types";
import { SUFFIX_ADAPTER } from "./adapters";
import { deploy, type Gw, setup } from "./harness";

/** The real bindings, with a WORKSPACE that counts lease grants and can be cut off from home. */
function homeLink() {
  const link = { grants: 0, cut: false };
  const workspace = {
    getByName: (name: string) => ({
      grantLease: async () => {
        link.grants += 1;
        if (link.cut) throw new Error("the workspace's home does not answer");
        return env.WORKSPACE.getByName(name).grantLease();
      },
    }),
  };
  return { link, env: { ...env, WORKSPACE: workspace as unknown as Env["WORKSPACE"] } };
}

const toolCall = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text } },
});

function post(g: Gw, bound: Env, path: string, body: unknown, key = g.callKey) {
  return gateway.fetch(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify(body),
    }),
    bound,
    g.ctx,
  );
}

afterEach(() => {
  vi.useRealTimers();
  pipelineFaults.beforeDispatch = undefined;
  clearLeases();
});

describe("the gateway on a lease", () => {
  it("warm hooked tool calls and tools/list make no trip to the workspace's home: one grant for twenty calls", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER(" leased"), { testArgs: { text: "x" } });
    const { link, env: bound } = homeLink();
    clearLeases();
    // The calls come 1 ms apart on the isolate's clock, well inside one lease, however slow this machine is.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    for (let i = 0; i < 20; i++) {
      vi.setSystemTime(start + i);
      const res = await post(g, bound, `/mcp/${g.ws}`, toolCall(i, `n${i}`));
      expect(await res.json()).toMatchObject({ result: { content: [{ text: `n${i} leased` }] } });
    }
    const list = await post(g, bound, `/mcp/${g.ws}`, { jsonrpc: "2.0", id: 99, method: "tools/list" });
    expect(list.status).toBe(200);
    expect(link.grants).toBe(1);
  });

  it("no lease and no answer from home: /mcp answers 424 workspace_unavailable, and nothing runs or is sent", async () => {
    const g = await setup();
    const { link, env: bound } = homeLink();
    link.cut = true;
    clearLeases();
    const res = await post(g, bound, `/mcp/${g.ws}`, toolCall(1, "x"));
    expect(res.status).toBe(424);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "workspace_unavailable" });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("no lease and no answer from home: the LLM proxy answers 424 in the provider's error shape", async () => {
    const g = await setup();
    const { link, env: bound } = homeLink();
    link.cut = true;
    clearLeases();
    const res = await post(g, bound, `/llm/${g.ws}/openai/v1/chat/completions`, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(res.status).toBe(424);
    expect(await res.json()).toMatchObject({
      code: "workspace_unavailable",
      error: { code: "workspace_unavailable" },
    });
  });

  it("a lease that ends mid-call with home cut off: step 4 refuses workspace_unavailable before the upstream", async () => {
    const g = await setup();
    const { link, env: bound } = homeLink();
    clearLeases();
    vi.useFakeTimers({ toFake: ["Date"] });
    pipelineFaults.beforeDispatch = () => {
      // The lease runs out during the stages and the renewal finds home unreachable. The clock moves
      // past any lease too, so one granted by a request still in flight when home was cut (the
      // admission's, on a slow machine) cannot answer step 4 either.
      clearLeases();
      link.cut = true;
      vi.setSystemTime(Date.now() + 2 * KNOBS.leaseMs);
    };
    const res = await post(g, bound, `/mcp/${g.ws}`, toolCall(1, "x"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      result: { isError: true, _meta: { "rayrun/error": { code: "workspace_unavailable" } } },
    });
    expect(await g.upstream.calls()).toEqual([]);
  });
});
