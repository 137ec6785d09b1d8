// On one isolate, the property reliability/linearizability.test.ts checks
// across colos: once a deploy has returned, a call that starts afterwards runs
// the revision it deployed, although the isolate holds a lease granted before
// it. The same scenario with the object's wait switched off
// (SIM_UNSAFE_SKIP_LEASE_WAIT) runs the replaced revision: the wait is what
// keeps the held lease from being trusted past a write.
//
// Each scenario builds the workspace's object itself over the real object's
// storage, with or without the switch, and hands the gateway a binding that
// reaches that instance, so the one variable is the var the object reads.
import { runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { WorkspaceObject } from "../../../durable-objects/workspace/object";
import { clearLeases, leasedView } from "../../../shared/lease/view";
import { gateway } from "../../../workers/gateway/app";
import { SUFFIX_ADAPTER } from "./adapters";
import { deploy, type Gw, setup } from "./harness";

afterEach(() => clearLeases());

/** What a tools/call of echo with `text` came back as: the text the upstream echoed. */
async function echoed(g: Gw, bound: Env, text: string): Promise<string> {
  const res = await gateway.fetch(
    new Request(`http://gateway.test/mcp/${g.ws}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${g.callKey}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text } },
      }),
    }),
    bound,
    g.ctx,
  );
  const body = await res.json<{ result?: { content?: { text?: string }[] } }>();
  return body.result?.content?.[0]?.text ?? JSON.stringify(body);
}

interface Scenario {
  g: Gw;
  /** The echo tool's target and its two revisions: A ends " A", B ends " B"; B is active. */
  target: string;
  revisions: { A: string; B: string };
}

async function twoRevisions(): Promise<Scenario> {
  const g = await setup();
  const A = (await deploy(g, "echo", SUFFIX_ADAPTER(" A"), { testArgs: { text: "x" } })).revisionId;
  const B = (await deploy(g, "echo", SUFFIX_ADAPTER(" B"), { testArgs: { text: "x" } })).revisionId;
  return { g, target: `tool:${g.tools.echo}`, revisions: { A, B } };
}

/**
 * Runs `body` with the workspace's object built with `vars` over its real
 * storage, and an env whose WORKSPACE binding leads the gateway to it.
 */
async function withObject(
  s: Scenario,
  vars: { SIM_UNSAFE_SKIP_LEASE_WAIT?: string },
  body: (object: WorkspaceObject, bound: Env) => Promise<void>,
): Promise<void> {
  await runInDurableObject(workspaceObject(env, s.g.ws), async (_real, state) => {
    const object = new WorkspaceObject(state, { ...env, ...vars });
    const binding = { getByName: () => ({ grantLease: async () => object.grantLease() }) };
    await body(object, { ...env, WORKSPACE: binding as unknown as Env["WORKSPACE"] });
    await waitOnExecutionContext(s.g.ctx);
  });
}

/**
 * One round, the same with and without the switch: a call to warm the
 * isolate's caches, then a fresh lease on the current view, then a deploy
 * of `next` that returns, then a call. Its echo, the revision it ran.
 */
async function round(s: Scenario, object: WorkspaceObject, bound: Env, i: number, next: "A" | "B") {
  await echoed(s.g, bound, `warm${i}`);
  clearLeases();
  await leasedView(bound, s.g.ws);
  await object.setPointer(s.target, "active", s.revisions[next], 1000);
  return echoed(s.g, bound, `after${i}`);
}

const NEXT = ["A", "B", "A"] as const;

describe("a call that starts after a deploy returned, on an isolate holding a lease from before it", () => {
  it("with the object's wait skipped, runs the revision the deploy replaced", async () => {
    const s = await twoRevisions();
    await withObject(s, { SIM_UNSAFE_SKIP_LEASE_WAIT: "1" }, async (object, bound) => {
      const seen: string[] = [];
      for (const [i, next] of NEXT.entries()) seen.push(await round(s, object, bound, i, next));
      expect(seen).toEqual(["after0 B", "after1 A", "after2 B"]);
      // The deploys took effect: a lease granted now carries the last one.
      expect(object.grantLease().view.pointers[s.target]?.active?.revisionId).toBe(s.revisions.A);
    });
  });

  it("with the wait, never: it runs the revision the deploy put in place", async () => {
    const s = await twoRevisions();
    await withObject(s, {}, async (object, bound) => {
      const seen: string[] = [];
      for (const [i, next] of NEXT.entries()) seen.push(await round(s, object, bound, i, next));
      expect(seen).toEqual(["after0 A", "after1 B", "after2 A"]);
    });
  });
});
