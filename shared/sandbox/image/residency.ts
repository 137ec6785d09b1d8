// Who owns the instance's memory. Calls run one at a time in the one runtime
// (images.ts): a call's image is written in before it starts, and a call that
// awaits a host capability parks a copy of its state and gets it written back
// before it continues. So every call starts from its image, nothing of one
// call is left for the next, and an awaiting call holds no instance while it
// waits.
//
// What a call dirtied (its image's words, the heap it grew, the stack it
// used) is put back after the call has answered, in a task of its own: the
// isolate is idle then (between requests, or while the request awaits its
// upstream), and a next call of the same image finds memory already holding
// it and starts without writing anything. A call that comes first does that
// work itself, so nothing depends on the task running.
import { LIMITS } from "../../limits";
import { engineFault, fail } from "../engine/failure";
import { heapBreak, type HeapLayout } from "../engine/heap-layout";
import type { Instance } from "../engine/instance";
import type { HostBinding, Vm } from "../engine/vm";
import { capture, restore, snapshotBytes, type Snapshot } from "./image";

/**
 * A call as its residency sees it (../call/call.ts): what the VM's host
 * functions serve while it runs, and the invocation that holds the instance
 * for it.
 */
export interface Resident extends HostBinding {
  readonly owner: object;
}

/** Where a call's state lives while it awaits a host capability. */
export interface Residency {
  /** Saves the call's state before it awaits; throws a SandboxFailure when it cannot. */
  park(call: Resident): void;
  /** Makes the call's state the one in memory again; throws a SandboxFailure when it cannot. */
  resume(call: Resident): Promise<void> | void;
}

/** Calls that run in a runtime of their own keep it while they wait. */
export const OWN_RUNTIME: Residency = { park: () => undefined, resume: () => undefined };

/**
 * The C stack the sandbox can dirty below its top: QuickJS stops JS at
 * LIMITS.stackBytes, and native code past its last check stays well within
 * the slack. Tests check that nothing below is ever written.
 */
export const STACK_WINDOW_BYTES = LIMITS.stackBytes + 64 * 1024;

/**
 * One holder at a time: an invocation holds the instance from before its
 * image is written until its call has ended, across every await of its own
 * (a call's promise settling is one), and lets go only to park. Others queue,
 * first come first served.
 */
class EngineLock {
  private holder: object | null = null;
  private readonly queue: { owner: object; wake: () => void }[] = [];

  /** Resolves once `owner` holds the instance. */
  acquire(owner: object): Promise<void> | undefined {
    if (this.holder === null) {
      this.holder = owner;
      return undefined;
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.queue.push({ owner, wake: resolve });
    return promise;
  }

  release(owner: object): void {
    if (this.holder !== owner) return;
    const next = this.queue.shift();
    this.holder = next?.owner ?? null;
    next?.wake();
  }

  get idle(): boolean {
    return this.holder === null;
  }
}

/** Memory writes of an instance (tests and benches). */
export interface ResidencyCounters {
  /** Images written in before a call or build. */
  writes: number;
  /** Calls that found their image already in memory. */
  skipped: number;
  /** Images put back after a call, off the call's path. */
  settled: number;
}

export class ImageResidency implements Residency {
  private readonly lock = new EngineLock();
  /** Whose state memory holds: a running call, or a parked one nobody has displaced yet. */
  private resident: Resident | null = null;
  /** The first heap address above which memory is known to be zero. */
  private dirtyEnd: number;
  /** Whether the stack window may hold bytes of a call. */
  private stackDirty = true;
  /** The image memory holds exactly, nothing written since: a call of it writes nothing in. */
  private clean: Snapshot | null = null;
  /** The image to put back once the instance is idle (a task is queued while this is set). */
  private settleTo: Snapshot | null = null;
  readonly counters: ResidencyCounters = { writes: 0, skipped: 0, settled: 0 };
  private readonly parked = new Map<Resident, Snapshot>();
  /** Bytes of parked states in this instance. */
  parkedBytes = 0;

  constructor(
    private readonly engine: Instance,
    private readonly vm: Vm,
    private readonly layout: HeapLayout,
  ) {
    // Start-up left bytes anywhere above the heap (probes): the first restore zeroes them all.
    this.dirtyEnd = engine.memory.buffer.byteLength;
  }

  /** Writes `image` into memory for `call`, which becomes the running call (null: our own set-up code). */
  enter(call: Resident | null, image: Snapshot): void {
    if (this.clean === image) this.counters.skipped++;
    else this.write(image);
    if (this.stackDirty) this.zeroStack(new Uint8Array(this.engine.memory.buffer));
    this.clean = null;
    this.resident = call;
    this.vm.current = call;
  }

  /** Memory becomes `image`: its bytes written, everything above its end that may be dirty zeroed. */
  private write(image: Snapshot): void {
    restore(this.engine.memory, this.layout, image, this.dirtyEnd);
    this.dirtyEnd = image.end;
    this.counters.writes++;
  }

  /** True while memory holds `call`'s state. */
  holds(call: Resident): boolean {
    return this.resident === call;
  }

  /**
   * After an image build: zeroes the heap it grew above `end` and the stack
   * it used, so what runs next meets none of its bytes.
   */
  leave(call: Resident | null, end: number): void {
    if (!this.vacate(call)) return;
    const bytes = new Uint8Array(this.engine.memory.buffer);
    if (this.dirtyEnd > end) bytes.fill(0, end, this.dirtyEnd);
    this.dirtyEnd = end;
    this.zeroStack(bytes);
  }

  /**
   * After a call of `image`: memory is put back to `image` once the call has
   * answered (a task of its own, when nobody holds the instance), unless a
   * next call gets there first and writes its own image in.
   */
  leaveFor(call: Resident, image: Snapshot): void {
    if (!this.vacate(call)) return;
    // The last call's image: the likeliest to be called next.
    const scheduled = this.settleTo !== null;
    this.settleTo = image;
    if (scheduled) return;
    setTimeout(() => {
      const last = this.settleTo;
      this.settleTo = null;
      if (last !== null) this.settle(last);
    }, 0);
  }

  /** `call` (null: set-up code) no longer runs; false when memory is not its or the engine is gone. */
  private vacate(call: Resident | null): boolean {
    if (call !== null) this.dropParked(call);
    if (this.resident !== call) return false;
    this.resident = null;
    this.vm.current = null;
    if (this.engine.retired) return false;
    this.dirtyEnd = Math.max(heapBreak(this.engine.memory, this.layout), this.dirtyEnd);
    this.stackDirty = true;
    return true;
  }

  /** Writes `image` back if memory is nobody's and not already clean. */
  private settle(image: Snapshot): void {
    if (!this.lock.idle || this.resident !== null || this.clean !== null || this.engine.retired) return;
    this.write(image);
    this.zeroStack(new Uint8Array(this.engine.memory.buffer));
    this.clean = image;
    this.counters.settled++;
  }

  /** Waits until `owner` holds the instance (an invocation, before it writes any image). */
  async acquire(owner: object): Promise<void> {
    await this.lock.acquire(owner);
  }

  /** `owner` is done with the instance. */
  release(owner: object): void {
    this.lock.release(owner);
  }

  park(call: Resident): void {
    if (this.resident !== call) throw new Error("sandbox: parking a call that is not running");
    const state = capture(this.engine.memory, this.layout);
    const bytes = snapshotBytes(state);
    if (this.parkedBytes + bytes > LIMITS.sandboxParkedBytes) {
      throw fail(
        "hook_out_of_memory",
        `the hook awaited a host call holding ${bytes} bytes of sandbox state, more than can be set aside while it waits`,
      );
    }
    this.parked.set(call, state);
    this.parkedBytes += bytes;
    this.vm.current = null;
    this.dirtyEnd = Math.max(this.dirtyEnd, heapBreak(this.engine.memory, this.layout));
    this.zeroStack(new Uint8Array(this.engine.memory.buffer));
    this.lock.release(call.owner);
  }

  async resume(call: Resident): Promise<void> {
    await this.lock.acquire(call.owner);
    const state = this.parked.get(call);
    if (state === undefined) throw new Error("sandbox: resuming a call that is not parked");
    if (this.engine.retired) {
      this.dropParked(call);
      throw engineFault("the sandbox engine failed while the hook awaited a host call");
    }
    if (this.resident !== call) {
      restore(this.engine.memory, this.layout, state, this.dirtyEnd);
      this.dirtyEnd = state.end;
      this.clean = null;
      this.resident = call;
    }
    this.dropParked(call);
    this.vm.current = call;
  }

  /** Drops a call's parked state, if any. */
  private dropParked(call: Resident): void {
    const state = this.parked.get(call);
    if (state === undefined) return;
    this.parked.delete(call);
    this.parkedBytes -= snapshotBytes(state);
  }

  /** Memory is nobody's once the engine is gone (parked calls fail when they resume). */
  retire(): void {
    this.resident = null;
    this.clean = null;
    this.vm.current = null;
  }

  private zeroStack(bytes: Uint8Array): void {
    const top = this.layout.heapBase;
    bytes.fill(0, top - STACK_WINDOW_BYTES, top);
    this.stackDirty = false;
  }
}
