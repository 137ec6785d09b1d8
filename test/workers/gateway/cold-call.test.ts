// A cold isolate's first call, counted in rounds home with the simulated
// distance on: the key and the lease are asked for together, and the lease's
// pointers name the code of every deployed revision, so the catalog, the
// revision's row and its code arrive in the round after. Counted, not timed:
// the counters say how many times a call waited on the home in a row.
import { waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { simulatedDistanceCounts } from "../../../shared/sim/distance";
import worker from "../../../workers/gateway/index";
import { SUFFIX_ADAPTER } from "./adapters";
import { deploy, type Gw, setup } from "./harness";

const far = { ...env, SIM_HOME_RTT_MS: "1" };

const send = (g: Gw, path: string, body?: unknown) =>
  worker.fetch(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${g.callKey}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    far,
    g.ctx,
  );

const echo = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text: `call ${id}` } },
});

/** Empties the isolate's caches: its next call is a cold isolate's first. */
async function forget(g: Gw): Promise<void> {
  expect((await send(g, "/__sim/forget")).status).toBe(200);
}

/** Rounds home one request made, once what the last call left running (run records, a renewal) is done. */
async function roundsOf(g: Gw, id: number): Promise<{ rounds: number; text: string }> {
  await waitOnExecutionContext(g.ctx);
  const before = simulatedDistanceCounts().rounds;
  const res = await send(g, `/mcp/${g.ws}`, echo(id));
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { rounds: simulatedDistanceCounts().rounds - before, text };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a cold isolate's first call", () => {
  it("reaches the workspace's home in at most 2 rounds for a hooked tool, and a warm call in none", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER(" cold"), { testArgs: { text: "x" } });
    // The suite's leases last 200 ms; a stopped clock keeps a slow machine from ending one mid-call.
    vi.useFakeTimers({ toFake: ["Date"] });
    await forget(g);
    const cold = await roundsOf(g, 1);
    expect(cold.text).toContain("call 1 cold");
    expect(cold.rounds).toBeGreaterThan(0);
    expect(cold.rounds).toBeLessThanOrEqual(2);
    const warm = await roundsOf(g, 2);
    expect(warm.text).toContain("call 2 cold");
    expect(warm.rounds).toBe(0);
  });
});
