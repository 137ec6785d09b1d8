// The isolate's lease on each workspace's view (pointers, revoked keys,
// catalog version), granted by the workspace's object. Every hot path reads
// the view through `leasedView`: while the lease holds it answers from memory,
// so a call pays no trip to the workspace's home; renewal starts in the
// background once KNOBS.leaseRenewAtFraction of the lease has passed, so
// steady traffic never waits for it; a call with no usable lease pays one
// trip.
//
// Why a held lease may be trusted: the object makes every write that changes
// the view wait, before it returns, until every lease granted before the
// write has ended (plus a margin). The lease here is counted from before the
// request that asked for it was sent, so it ends no later than the object's
// record of it. A lease usable now was therefore granted after every write
// that has returned by now. "Now" is `Date.now()` plus the CPU the clock has
// not shown yet (Workers move the clock only at I/O; see shared/clock.ts) plus
// KNOBS.leaseClockSlackMs. docs/architecture.md ("Leases") gives the whole
// argument with its margins.
import {
  type Lease,
  type WorkspaceBinding,
  type WorkspaceView,
  workspaceObject,
} from "../../durable-objects/workspace/rpc";
import { boundedCache } from "../cache";
import { unseenCpuMs } from "../clock";
import { KNOBS } from "../knobs";

interface Held {
  view: WorkspaceView;
  /** When the request that got it was sent (isolate clock). */
  sentAt: number;
  expiresAt: number;
  renewAt: number;
}

export interface Leased {
  view: WorkspaceView;
  /** Whether this call asked the object for it (a trip home) rather than using a held lease. */
  fetched: boolean;
  /** When the request that got the view was sent (isolate clock). */
  sentAt: number;
}

/** No lease could be had (the object did not answer): the caller fails closed. */
export class LeaseUnavailable extends Error {
  constructor(workspaceUid: string, cause: unknown) {
    super(`no lease on workspace ${workspaceUid}'s view`, { cause });
    this.name = "LeaseUnavailable";
  }
}

const held = boundedCache<string, Held>({ entries: KNOBS.leaseEntries });
const inFlight = new Map<string, Promise<Held>>();

/** For tests: forget every lease this isolate holds. */
export function clearLeases(): void {
  held.clear();
}

const usable = (lease: Held): boolean =>
  Date.now() + unseenCpuMs() + KNOBS.leaseClockSlackMs < lease.expiresAt;

/** One grant at a time per workspace: concurrent callers share the trip. */
function acquire(env: WorkspaceBinding, workspaceUid: string): Promise<Held> {
  const pending = inFlight.get(workspaceUid);
  if (pending !== undefined) return pending;
  const sentAt = Date.now();
  const asked = workspaceObject(env, workspaceUid)
    .grantLease()
    .then((lease: Lease) => {
      const got: Held = {
        view: lease.view,
        sentAt,
        expiresAt: sentAt + lease.ms,
        renewAt: sentAt + lease.ms * KNOBS.leaseRenewAtFraction,
      };
      const current = held.get(workspaceUid);
      if (current === undefined || current.sentAt <= got.sentAt) held.set(workspaceUid, got);
      return got;
    })
    .finally(() => inFlight.delete(workspaceUid));
  inFlight.set(workspaceUid, asked);
  return asked;
}

/**
 * The workspace's view for a call that is running now. `waitUntil`, when
 * given, lets a held lease past its renewal point be renewed after the
 * response. Throws LeaseUnavailable when the object cannot be reached and no
 * usable lease is held.
 */
export async function leasedView(
  env: WorkspaceBinding,
  workspaceUid: string,
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<Leased> {
  const startedAt = Date.now();
  const current = held.get(workspaceUid);
  if (current !== undefined && usable(current)) {
    if (waitUntil !== undefined && startedAt >= current.renewAt && !inFlight.has(workspaceUid)) {
      // A failed renewal is not an error: the lease runs out and the next call asks again.
      waitUntil(acquire(env, workspaceUid).catch(() => undefined));
    }
    return { view: current.view, fetched: false, sentAt: current.sentAt };
  }
  try {
    let got = await acquire(env, workspaceUid);
    // A grant asked for before this call started may predate a write that has
    // returned since; it serves only while usable, else this call asks anew.
    if (got.sentAt < startedAt && !usable(got)) got = await acquire(env, workspaceUid);
    return { view: got.view, fetched: true, sentAt: got.sentAt };
  } catch (error) {
    throw new LeaseUnavailable(workspaceUid, error);
  }
}
