// Pre-warmed single-use sessions (DESIGN §3 "Pre-warmed single-use
// contexts"). Parsing the prelude and running a hook's top level cost more
// than the call itself, so they happen ahead of time — typically in
// `ctx.waitUntil` after a response — and a call takes a session whose module
// phase is done, uses it for exactly one call and disposes it.
//
// Invariants:
//  - Every pooled session has its own runtime and context, ran the prelude
//    and the module's top level (fixed clock, fixed seed, own budget) and
//    never served a call. Per-call values reach it only through the prelude's
//    private api at call time (invocation.ts), so a top level that planted
//    setters or proxies sees nothing of the call that eventually uses it.
//  - Bounded: `perCode` sessions per code, `total` overall, `maxCodes` codes
//    remembered; a code unused for `idleMs` loses its sessions; a session
//    whose heap is over `maxContextBytes` is not kept (the code runs fresh);
//    and no session is created unless `reserveBytes` of contiguous memory is
//    still allocatable in the instance, so the pool never takes what calls
//    need (running out of memory while creating a runtime traps the module).
//  - Every pooled session belongs to the current engine; once that engine is
//    retired (any wasm trap), the pool drops all of them without touching the
//    dead instance.
//  - A module phase that fails deterministically (throw, fuel, invalid module)
//    is remembered per code, so neither warming nor calls burn it again; the
//    call reports the same failure a fresh run would.
import { laterTurn } from "../later-turn";
import type { Activity } from "./activity";
import type { Engine, EngineProvider } from "./engine";
import { canAllocate } from "./engine";
import { discardPrepared, type ModuleResult, type PreparedSession } from "./invocation";
import type { SandboxError } from "./types";

const MiB = 1024 * 1024;

export interface PoolOptions {
  /** Warm sessions kept per code (a tool call with before and after takes two). */
  perCode: number;
  /** Warm sessions kept overall. */
  total: number;
  /** Codes remembered (warm sessions or a remembered failure), least recently used dropped first. */
  maxCodes: number;
  /** A code not called or warmed for this long loses its warm sessions. */
  idleMs: number;
  /** Contiguous bytes that must stay allocatable before another session is created. */
  reserveBytes: number;
  /** A warm session whose QuickJS heap exceeds this is discarded and its code runs fresh. */
  maxContextBytes: number;
  /**
   * Used sessions whose disposal (~0.4 ms) waits for the next refill instead
   * of sitting on the critical path; 0 disposes at once. Only after a
   * successful call, and only while `reserveBytes` stays allocatable.
   */
  deferDispose: number;
  /** Clock for idleness (Workers advance it at I/O, which is fine for minutes). */
  now: () => number;
  /**
   * Requests in flight in the isolate: while any is, a refill builds only for
   * codes with fewer than `urgent` warm sessions, and waits for a quiet moment
   * for the rest (see activity.ts). Without it, refills never wait.
   */
  activity?: Activity;
  /** Warm sessions below which a refill builds even while requests are in flight (one call's need). */
  urgent: number;
}

export const POOL_DEFAULTS: PoolOptions = {
  perCode: 4,
  total: 32,
  maxCodes: 256,
  idleMs: 60_000,
  reserveBytes: 12 * MiB,
  maxContextBytes: 1 * MiB,
  deferDispose: 8,
  now: () => Date.now(),
  urgent: 2,
};

export interface ModuleFailure {
  error: SandboxError;
  fuelUsed: number;
}

interface Entry<P> {
  warm: PreparedSession<P>[];
  lastUsed: number;
  failure?: ModuleFailure;
  /** The module's sessions are too large to keep. */
  oversized?: boolean;
  /**
   * A session of this code was measured within `maxContextBytes`. The module
   * phase is deterministic (fixed clock and seed), so every session of a code
   * has the same heap, and measuring walks all of it (~0.15 ms per build).
   */
  sized?: boolean;
  refilling?: Promise<void>;
  /** Wakes a refill waiting for a quiet moment once a call leaves the code short. */
  wake?: () => void;
}

export type Taken<P> =
  | { kind: "warm"; prepared: PreparedSession<P> }
  | { kind: "failed"; failure: ModuleFailure }
  | { kind: "none" };

export interface PoolStats {
  codes: number;
  warm: number;
  /** Used sessions waiting to be disposed. */
  spent: number;
  /** Calls served by a warm session, calls that ran fresh, calls answered from a remembered failure. */
  hits: number;
  misses: number;
  remembered: number;
  /** Sessions created by refills, and discarded unused (eviction, idleness, oversize, engine change). */
  created: number;
  discarded: number;
  /** Refills stopped because the memory reserve was not available. */
  reserveStops: number;
}

const MEMORY_USED = /memory used\s+\d+\s+(\d+)/;

/** The runtime's heap as QuickJS counts it (objects, buffers, bytecode, flat strings); 0 if unreadable. */
export function heapBytes(prepared: PreparedSession<unknown>): number {
  const match = MEMORY_USED.exec(prepared.session.runtime.dumpMemoryUsage());
  return match ? Number(match[1]) : 0;
}

export class WarmPool<P> {
  readonly options: PoolOptions;
  /** Insertion order is recency: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry<P>>();
  /** Sessions that served their call and wait to be disposed. */
  private spent: PreparedSession<P>[] = [];
  private engine: Engine | undefined;
  private warmCount = 0;
  private lastSweep = 0;
  private readonly counters = {
    hits: 0,
    misses: 0,
    remembered: 0,
    created: 0,
    discarded: 0,
    reserveStops: 0,
  };

  constructor(
    private readonly provider: EngineProvider,
    private readonly build: (engine: Engine, code: string) => ModuleResult<P>,
    options: Partial<PoolOptions> = {},
  ) {
    this.options = { ...POOL_DEFAULTS, ...options };
  }

  stats(): PoolStats {
    return { codes: this.entries.size, warm: this.warmCount, spent: this.spent.length, ...this.counters };
  }

  /** Takes a session back after its one call; see `deferDispose`. */
  readonly release = (prepared: PreparedSession<P>, succeeded: boolean): void => {
    if (succeeded && this.spent.length < this.options.deferDispose && prepared.engine === this.engine) {
      this.spent.push(prepared);
      if (canAllocate(prepared.engine, this.options.reserveBytes)) return;
    } else {
      discardPrepared(this.provider, prepared);
    }
    this.flushSpent();
  };

  /** Disposes the used sessions (refills start with this, off the critical path). */
  flushSpent(): void {
    for (const prepared of this.spent.splice(0)) discardPrepared(this.provider, prepared);
  }

  /** Takes the warm session for one call, the remembered failure, or nothing (run fresh). */
  take(code: string, engine: Engine): Taken<P> {
    this.adopt(engine);
    const entry = this.entries.get(code);
    if (!entry) {
      this.counters.misses++;
      return { kind: "none" };
    }
    this.touch(code, entry);
    if (entry.failure) {
      this.counters.remembered++;
      return { kind: "failed", failure: entry.failure };
    }
    const prepared = entry.warm.pop();
    if (!prepared) {
      this.counters.misses++;
      return { kind: "none" };
    }
    this.warmCount--;
    this.counters.hits++;
    if (entry.warm.length < this.options.urgent) entry.wake?.();
    return { kind: "warm", prepared };
  }

  /** Remembers a deterministic module failure seen by a fresh call. */
  remember(code: string, failure: ModuleFailure): void {
    const entry = this.entries.get(code) ?? this.insert(code);
    this.touch(code, entry);
    this.dropWarm(entry);
    entry.failure = failure;
  }

  /** Refills the code's warm sessions up to `perCode`; never throws (best effort). */
  refill(code: string): Promise<void> {
    const entry = this.entries.get(code) ?? this.insert(code);
    this.touch(code, entry);
    if (entry.refilling) return entry.refilling;
    const refilling = this.refillEntry(code, entry)
      .catch((error: unknown) => console.error("sandbox: warming failed", error))
      .finally(() => {
        entry.refilling = undefined;
      });
    entry.refilling = refilling;
    return refilling;
  }

  /** Drops every warm and used session (e.g. to free memory); remembered failures stay. */
  clear(): void {
    this.flushSpent();
    for (const entry of this.entries.values()) this.dropWarm(entry);
  }

  private async refillEntry(code: string, entry: Entry<P>): Promise<void> {
    const { perCode, total, reserveBytes, maxContextBytes } = this.options;
    for (;;) {
      // Every build waits for a turn of the event loop: a refill started
      // during a request never runs in the request's own synchronous work,
      // and one build at most delays others. With `activity`, it also waits
      // for the isolate's requests to finish unless the code is short.
      await laterTurn();
      const engine = await this.provider.get();
      this.adopt(engine);
      // The entry may have been dropped (LRU) or marked meanwhile.
      const done = this.entries.get(code) !== entry || entry.failure || entry.oversized;
      if (done || entry.warm.length >= perCode) {
        this.flushSpent();
        return;
      }
      const activity = this.options.activity;
      if (activity?.busy && entry.warm.length >= this.options.urgent) {
        const short = Promise.withResolvers<void>();
        entry.wake = short.resolve;
        await Promise.race([activity.quiet(), short.promise]);
        entry.wake = undefined;
        continue;
      }
      this.flushSpent();
      if (this.warmCount >= total && !this.evictOther(code)) return;
      if (!canAllocate(engine, reserveBytes)) {
        // Older codes' sessions give way to this one before giving up.
        let freed = false;
        while (!freed && this.evictOther(code)) freed = canAllocate(engine, reserveBytes);
        if (!freed) {
          this.counters.reserveStops++;
          return;
        }
      }
      const built = this.build(engine, code);
      if (!built.ok) {
        if (built.deterministic) this.remember(code, { error: built.error, fuelUsed: built.fuelUsed });
        return;
      }
      const prepared = built.prepared;
      this.counters.created++;
      if (engine.retired || this.engine !== engine || this.entries.get(code) !== entry) {
        this.discard(prepared);
        return;
      }
      if (!entry.sized) {
        if (heapBytes(prepared) > maxContextBytes) {
          entry.oversized = true;
          this.discard(prepared);
          return;
        }
        entry.sized = true;
      }
      entry.warm.push(prepared);
      this.warmCount++;
    }
  }

  /** Pooled sessions live in one engine; a new or retired one makes them all unusable. */
  private adopt(engine: Engine): void {
    if (this.engine === engine && !engine.retired) {
      this.sweep();
      return;
    }
    // Never dispose into a dead instance: drop the references with it.
    this.spent = this.spent.filter((prepared) => prepared.engine === engine && !engine.retired);
    for (const entry of this.entries.values()) {
      this.counters.discarded += entry.warm.length;
      entry.warm = [];
    }
    this.warmCount = 0;
    this.engine = engine.retired ? undefined : engine;
  }

  private insert(code: string): Entry<P> {
    const entry: Entry<P> = { warm: [], lastUsed: this.options.now() };
    this.entries.set(code, entry);
    while (this.entries.size > this.options.maxCodes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      const dropped = this.entries.get(oldest.value);
      this.entries.delete(oldest.value);
      if (dropped) this.dropWarm(dropped);
    }
    return entry;
  }

  private touch(code: string, entry: Entry<P>): void {
    entry.lastUsed = this.options.now();
    this.entries.delete(code);
    this.entries.set(code, entry);
  }

  /** Drops warm sessions of codes idle for `idleMs` (checked at most every second). */
  private sweep(): void {
    const now = this.options.now();
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const entry of this.entries.values()) {
      if (now - entry.lastUsed < this.options.idleMs) break; // recency order: the rest are newer
      this.dropWarm(entry);
    }
  }

  /** Frees the warm sessions of the least recently used other code; false when there are none. */
  private evictOther(code: string): boolean {
    for (const [key, entry] of this.entries) {
      if (key !== code && entry.warm.length > 0) {
        this.dropWarm(entry);
        return true;
      }
    }
    return false;
  }

  private dropWarm(entry: Entry<P>): void {
    for (const prepared of entry.warm.splice(0)) {
      this.warmCount--;
      this.discard(prepared);
    }
  }

  private discard(prepared: PreparedSession<P>): void {
    this.counters.discarded++;
    discardPrepared(this.provider, prepared);
  }
}
