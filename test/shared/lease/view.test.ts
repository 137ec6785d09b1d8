import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkspaceBinding } from "../../../durable-objects/workspace/rpc";
import { noteCpuMs } from "../../../shared/clock";
import { KNOBS } from "../../../shared/knobs";
import { clearLeases, LeaseUnavailable, leasedView } from "../../../shared/lease/view";

/** The real object behind a binding that counts grants and can be made to fail. */
function counted() {
  const state = { grants: 0, failing: false };
  const binding = {
    getByName: (name: string) => ({
      grantLease: async () => {
        state.grants += 1;
        if (state.failing) throw new Error("the workspace's home does not answer");
        return env.WORKSPACE.getByName(name).grantLease();
      },
    }),
  };
  return { state, env: { WORKSPACE: binding } as unknown as WorkspaceBinding };
}

/** A workspace whose object a write has reached (its catalog, once), so its grants are leases. */
async function freshWs(): Promise<string> {
  const ws = `ws_leasec_${crypto.randomUUID()}`;
  await env.WORKSPACE.getByName(ws).catalogChanged();
  return ws;
}
/** The test suite's lease length (vitest.config.ts sets LEASE_MS). */
const LEASE_MS = 200;

// The isolate's clock moves only when a test moves it: leases end when the test says, however slow the machine.
let start = 0;
beforeEach(() => {
  start = Date.now();
  vi.useFakeTimers({ toFake: ["Date"] });
});

afterEach(() => {
  vi.useRealTimers();
  clearLeases();
});

describe("an isolate's lease on a workspace's view", () => {
  it("while the lease holds, calls are answered from memory: one trip for many calls", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    const first = await leasedView(bound, ws);
    expect(first.fetched).toBe(true);
    for (let i = 0; i < 20; i++) expect((await leasedView(bound, ws)).fetched).toBe(false);
    expect(state.grants).toBe(1);
  });

  it("concurrent calls with no lease share one trip", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    const views = await Promise.all(Array.from({ length: 8 }, () => leasedView(bound, ws)));
    expect(state.grants).toBe(1);
    expect(new Set(views.map((v) => v.view.epoch)).size).toBe(1);
  });

  it("past the renewal point a call is answered at once and the lease is renewed after it, in the background", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    await leasedView(bound, ws);
    // Past the renewal point, well before the end (on the isolate's clock).
    vi.setSystemTime(start + LEASE_MS * KNOBS.leaseRenewAtFraction + 5);
    const later: Promise<unknown>[] = [];
    const answered = await leasedView(bound, ws, (p) => later.push(p));
    expect(answered.fetched).toBe(false);
    expect(later).toHaveLength(1);
    await Promise.all(later);
    expect(state.grants).toBe(2);
  });

  it("a lease that has ended is not used: the next call pays one trip and sees writes made since", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    await leasedView(bound, ws);
    await env.WORKSPACE.getByName(ws).setPointer("tool:t", "active", "rev_2", 10);
    // The write returned once the lease had ended in real time; the isolate's clock shows it at its next I/O.
    vi.setSystemTime(start + LEASE_MS + 1);
    const after = await leasedView(bound, ws);
    expect(after.fetched).toBe(true);
    expect(after.view.pointers["tool:t"]?.active?.revisionId).toBe("rev_2");
    expect(state.grants).toBe(2);
  });

  it("no lease and no answer from home fails closed with LeaseUnavailable; a held lease still serves", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    state.failing = true;
    await expect(leasedView(bound, ws)).rejects.toBeInstanceOf(LeaseUnavailable);
    state.failing = false;
    await leasedView(bound, ws);
    state.failing = true;
    vi.setSystemTime(start + LEASE_MS * KNOBS.leaseRenewAtFraction + 5);
    const later: Promise<unknown>[] = [];
    // A failed renewal is not the call's failure: the lease still holds.
    expect((await leasedView(bound, ws, (p) => later.push(p))).fetched).toBe(false);
    await Promise.all(later);
    vi.setSystemTime(start + LEASE_MS + 1);
    await expect(leasedView(bound, ws)).rejects.toBeInstanceOf(LeaseUnavailable);
  });

  it("with the clock frozen during CPU work (as deployed), sandbox CPU the clock has not shown shortens the lease", async () => {
    const { state, env: bound } = counted();
    const ws = await freshWs();
    await leasedView(bound, ws);
    expect((await leasedView(bound, ws)).fetched).toBe(false);
    // A hook burned most of the lease's remaining time without I/O: the frozen clock does not show it.
    noteCpuMs(LEASE_MS);
    expect((await leasedView(bound, ws)).fetched).toBe(true);
    expect(state.grants).toBe(2);
  });
});
