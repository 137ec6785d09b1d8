import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LeaseBook, type LeaseClock } from "../../../durable-objects/workspace/lease";
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { WorkspaceStorage } from "../../../durable-objects/workspace/storage";
import { KNOBS } from "../../../shared/knobs";

/** A clock that moves only when told, and records the waits asked of it. */
function manualClock(start: number): LeaseClock & { at: number; waits: number[] } {
  const clock = {
    at: start,
    waits: [] as number[],
    now: () => clock.at,
    sleep: (ms: number) => {
      clock.waits.push(ms);
      clock.at += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

interface Book {
  leases: LeaseBook;
  clock: ReturnType<typeof manualClock>;
  storage: WorkspaceStorage;
}

/** Runs `body` with a LeaseBook over a fresh object's storage (its real SQLite database), on a manual clock. */
async function withBook(leaseMs: number, body: (book: Book) => Promise<void>): Promise<void> {
  await runInDurableObject(workspaceObject(env, `ws_lease_${crypto.randomUUID()}`), async (_o, state) => {
    const clock = manualClock(1_000_000);
    const storage = new WorkspaceStorage(state.storage.sql);
    await body({ leases: new LeaseBook(storage, leaseMs, clock), clock, storage });
  });
}

describe("WorkspaceObject leases: a write returns only after every older lease has ended", () => {
  it("a write with no lease outstanding returns at once, and moves the epoch", () =>
    withBook(5000, async ({ leases, clock }) => {
      await leases.changed();
      expect(clock.waits).toEqual([]);
      expect(leases.epoch).toBe(1);
    }));

  it("a write waits until the last lease granted before it ends, plus the margin", () =>
    withBook(5000, async ({ leases, clock }) => {
      leases.grant();
      clock.at += 1200;
      leases.grant();
      clock.at += 300;
      await leases.changed();
      // The second lease ends 5000 ms after it was granted, 4700 ms from the write.
      expect(clock.waits).toEqual([4700 + KNOBS.leaseMarginMs]);
      expect(leases.epoch).toBe(1);
    }));

  it("leases granted after a write are not waited for by it, and a lease that ended is not waited for", () =>
    withBook(5000, async ({ leases, clock }) => {
      leases.grant();
      clock.at += 5000 + KNOBS.leaseMarginMs;
      await leases.changed();
      expect(clock.waits).toEqual([]);
      leases.grant();
      clock.at += 10;
      await leases.changed();
      expect(clock.waits).toEqual([5000 - 10 + KNOBS.leaseMarginMs]);
    }));

  it("a lease's end only moves forward: a shorter grant never shortens a write's wait", () =>
    withBook(5000, async ({ leases, clock, storage }) => {
      leases.grant();
      const shorter = new LeaseBook(storage, 100, clock);
      shorter.grant();
      expect(shorter.leaseUntil).toBe(clock.at + 5000);
    }));
});

/** An object some write has reached (the workspace's catalog was written once), so its grants are leases. */
async function writtenObject() {
  const stub = workspaceObject(env, `ws_lease_${crypto.randomUUID()}`);
  await stub.catalogChanged();
  return stub;
}

describe("WorkspaceObject leases through the object", () => {
  it("an object no write ever reached answers its empty view with no lease and stores nothing; after a write it grants leases", async () => {
    const stub = workspaceObject(env, `ws_stranger_${crypto.randomUUID()}`);
    expect(await stub.grantLease()).toEqual({
      view: { epoch: expect.any(Number), catalog: 0, pointers: {}, revoked: [] },
      ms: 0,
    });
    await runInDurableObject(stub, (_o, state) => {
      const rows = (table: string) => state.storage.sql.exec(`select * from ${table}`).toArray().length;
      expect(["meta", "pointers", "revoked_keys", "heads"].map(rows)).toEqual([0, 0, 0, 0]);
    });
    await stub.catalogChanged();
    expect((await stub.grantLease()).ms).toBeGreaterThan(0);
  });

  it("a deploy after a grant returns no earlier than the lease's end plus the margin", async () => {
    const stub = await writtenObject();
    const lease = await stub.grantLease();
    await stub.setPointer("tool:t", "active", "rev_1", 10);
    await runInDurableObject(stub, (_o, state) => {
      const until = Number(
        state.storage.sql.exec<{ value: string }>("select value from meta where key = 'lease_until'").one()
          .value,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(until + KNOBS.leaseMarginMs);
    });
    expect(lease.ms).toBeGreaterThan(0);
    expect((await stub.grantLease()).view.pointers["tool:t"]?.active?.revisionId).toBe("rev_1");
  });

  it("an object evicted mid-lease still waits out the leases its previous instance granted", async () => {
    const stub = await writtenObject();
    await stub.grantLease();
    await evictDurableObject(stub);
    await stub.revokeKey("key_a");
    await runInDurableObject(stub, (_o, state) => {
      const until = Number(
        state.storage.sql.exec<{ value: string }>("select value from meta where key = 'lease_until'").one()
          .value,
      );
      expect(until).toBeGreaterThan(0);
      expect(Date.now()).toBeGreaterThanOrEqual(until + KNOBS.leaseMarginMs);
    });
    expect((await stub.grantLease()).view.revoked).toEqual(["key_a"]);
  });

  it("a revoked key leaves the view once its revocation is older than the horizon", async () => {
    const stub = workspaceObject(env, `ws_lease_${crypto.randomUUID()}`);
    await stub.revokeKey("key_old", Date.now() - KNOBS.revokedKeyHorizonMs - 1000);
    await stub.revokeKey("key_new");
    const { view } = await stub.grantLease();
    expect(view.revoked).toEqual(["key_new"]);
    // The object still knows both.
    expect(await stub.isKeyRevoked("key_old")).toBe(true);
  });

  it("dropping a pointer that is not there changes no view and waits for nothing", async () => {
    const stub = workspaceObject(env, `ws_lease_${crypto.randomUUID()}`);
    const before = (await stub.grantLease()).view.epoch;
    await stub.dropPointer("tool:none", "shadow");
    expect((await stub.grantLease()).view.epoch).toBe(before);
  });
});
