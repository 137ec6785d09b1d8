// Leases on the workspace's view. The hot paths (every gateway call, every
// LLM call) recheck deployments, revocations and the catalog against a lease
// instead of asking the object per call, so a call pays no trip to the
// workspace's home while its isolate's lease holds.
//
// The rule that keeps "recheck before dispatch" exact: a write that changes
// the view moves the object to a new epoch and returns to its caller only
// once every lease granted before it has ended, plus a margin. A call that
// starts after the write returned therefore holds no older lease, and asks
// for a new one. `leaseUntil` (the latest end of any lease granted) is kept in
// storage before a grant answers, so an object evicted and restarted still
// waits out the leases its previous instance granted.
import { KNOBS } from "../../shared/knobs";
import type { WorkspaceStorage } from "./storage";

const LEASE_UNTIL = "lease_until";
const EPOCH = "epoch";

export interface LeaseClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export const realClock: LeaseClock = {
  now: () => Date.now(),
  sleep: (ms) => scheduler.wait(ms),
};

export class LeaseBook {
  constructor(
    private readonly storage: WorkspaceStorage,
    /** Lease length; KNOBS.leaseMs unless a test runs with shorter ones. */
    readonly leaseMs: number,
    private readonly clock: LeaseClock = realClock,
    /**
     * Test-only (SIM_UNSAFE_SKIP_LEASE_WAIT): writes return without waiting
     * for older leases, which breaks the guarantee above. It exists so that a
     * test can show its check fails without the wait; deploy refuses it.
     */
    private readonly skipWait = false,
  ) {}

  get epoch(): number {
    return Number(this.storage.getMeta(EPOCH) ?? "0");
  }

  /** Latest end of any lease granted, on the object's clock (0: none yet). */
  get leaseUntil(): number {
    return Number(this.storage.getMeta(LEASE_UNTIL) ?? "0");
  }

  /**
   * Records a lease granted now. Only the end moves forward, and it is stored
   * before the grant answers (the output gate holds the answer until then).
   */
  grant(): number {
    const until = this.clock.now() + this.leaseMs;
    if (until > this.leaseUntil) this.storage.setMeta(LEASE_UNTIL, String(until));
    return this.leaseMs;
  }

  /**
   * Called by every write that changed the view, after it changed it: the
   * next lease carries the new epoch, and this resolves once every lease
   * granted before the write has ended plus KNOBS.leaseMarginMs. Leases
   * granted meanwhile already carry the new view and are not waited for.
   */
  async changed(): Promise<void> {
    this.storage.setMeta(EPOCH, String(this.epoch + 1));
    if (this.skipWait) return;
    const wait = this.leaseUntil + KNOBS.leaseMarginMs - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait);
  }
}
