// Deterministic time budget. Wall clocks are frozen during CPU work on
// Workers, so time is bounded by counting work instead:
//  - interpreter steps, via QuickJS's interrupt poll (the counter is shortened
//    so polls come every FUEL.pollInterval steps and the count is exact),
//  - regex backtracking polls, told apart because they leave the counter alone,
//  - size-proportional built-ins, charged by the prelude through `lease`.
// The same code and input always burn the same fuel.
import type { Engine } from "./engine";
import { QUICKJS_POLL_RESET } from "./layout";

export const FUEL = {
  /** Interpreter steps between polls once the counter is found. */
  pollInterval: 1000,
  /** Shortest interval when the heap is large (each step may be costly then). */
  minPollInterval: 32,
  /** A regex poll stands for 10k backtracking steps, each slower than a bytecode step. */
  regexPollCost: 12_000,
  /** Fuel handed to the prelude per host round trip, so cheap calls stay in JS. */
  leaseChunk: 4096,
  /**
   * Live allocations (beyond those present when the hook started) that double
   * the price of a step: work like `for…in`, object spread or GC scales with
   * the heap, so a big heap makes every step dearer. Bytes are not observable
   * in this build (layout.ts), so allocations stand in for heap size.
   */
  allocsPerExtraStepCost: 16_384,
  /** Extra fuel per output byte for serialising a stage's result (see FuelMeter.extend). */
  outputAllowancePerByte: 8,
  /**
   * Creating any error walks every frame for its backtrace (measured: ~160
   * steps' worth of time plus ~40-65 per frame), so steps are priced by stack
   * depth: one extra step per this many bytes of wasm stack (~1.2 frames)
   * beyond the first few frames. With LIMITS.stackBytes this bounds error loops
   * deep in recursion to ~20x their fuel, while climbing to the stack limit
   * still fits the budget (so deep recursion reports hook_stack_overflow).
   */
  stackBytesPerExtraStepCost: 256,
  freeStackBytes: 1024,
  /** Steps allowed for our own set-up code (prelude), never charged to the hook. */
  setupSteps: 20_000_000,
} as const;

export class FuelMeter {
  used = 0;
  exhausted = false;
  private counting = false;
  private setupSpent = 0;
  private lastWritten = QUICKJS_POLL_RESET;
  private baseAllocs = 0;
  private view: Int32Array;

  constructor(
    public budget: number,
    private readonly engine: Engine,
    private readonly contextPtr: number,
    private readonly runtimePtr: number,
  ) {
    this.view = new Int32Array(engine.memory.buffer);
  }

  private words(): Int32Array {
    // Growing the memory detaches the old buffer; rebuild the view then.
    if (this.view.buffer !== this.engine.memory.buffer) this.view = new Int32Array(this.engine.memory.buffer);
    return this.view;
  }

  private counterIndex(): number | null {
    const offset = this.engine.layout.interruptCounterOffset;
    return offset === null ? null : (this.contextPtr + offset) >> 2;
  }

  /** Live allocations of this runtime (8 bytes of malloc_size each, see layout.ts). */
  liveAllocations(): number {
    const offset = this.engine.layout.mallocSizeOffset;
    if (offset === null) return 0;
    return (this.words()[(this.runtimePtr + offset) >> 2] ?? 0) >>> 3;
  }

  /** How deep in JS frames the VM is, in bytes of wasm stack. */
  stackDepthBytes(): number {
    const { stackFrameOffset, stackBase } = this.engine.layout;
    if (stackFrameOffset === null) return 0;
    const frame = (this.words()[(this.runtimePtr + stackFrameOffset) >> 2] ?? 0) >>> 0;
    return frame === 0 || frame > stackBase ? 0 : stackBase - frame;
  }

  private weight(): number {
    const extra = this.liveAllocations() - this.baseAllocs;
    const deep = this.stackDepthBytes() - FUEL.freeStackBytes;
    return (
      1 +
      (extra > 0 ? extra / FUEL.allocsPerExtraStepCost : 0) +
      (deep > 0 ? deep / FUEL.stackBytesPerExtraStepCost : 0)
    );
  }

  /**
   * Adds fuel for platform work whose size our own limits already bound (the
   * strict serialisation of a stage's output), so a valid large output never
   * times out because of our walk. It still counts in fuelUsed.
   */
  extend(units: number): void {
    if (!this.exhausted) this.budget += units;
  }

  /** Starts a new phase (module top level, then the call) with its own budget. */
  reset(budget: number): void {
    this.budget = budget;
    this.used = 0;
    this.exhausted = false;
    this.counting = false;
  }

  /** Start charging the hook: from here on every step costs fuel. */
  begin(): void {
    this.counting = true;
    this.baseAllocs = this.liveAllocations();
    this.writeInterval(FUEL.pollInterval);
  }

  /** Stop charging; counts the steps taken since the last poll. */
  finish(): void {
    if (!this.counting) return;
    const index = this.counterIndex();
    if (index !== null) {
      const left = this.words()[index] ?? 0;
      this.add(Math.max(0, this.lastWritten - left));
    }
    this.counting = false;
  }

  private add(amount: number): void {
    this.used += amount;
    if (this.used >= this.budget) this.exhausted = true;
  }

  private writeInterval(steps: number): void {
    const index = this.counterIndex();
    if (index === null) return;
    this.words()[index] = steps;
    this.lastWritten = steps;
  }

  /** The interrupt handler: true stops the VM with an uncatchable error. */
  onInterrupt(): boolean {
    if (!this.counting) {
      this.setupSpent += QUICKJS_POLL_RESET;
      return this.setupSpent > FUEL.setupSteps;
    }
    if (this.exhausted) return true;
    const index = this.counterIndex();
    const weight = this.weight();
    if (index === null) {
      // Fallback: every poll (regex or not) stands for a full default interval.
      this.add(QUICKJS_POLL_RESET * weight);
      return this.exhausted;
    }
    const isStepPoll = this.words()[index] === QUICKJS_POLL_RESET;
    if (isStepPoll) this.add(this.lastWritten * weight);
    else this.add(FUEL.regexPollCost);
    if (this.exhausted) return true;
    if (isStepPoll) {
      const remainingSteps = Math.ceil((this.budget - this.used) / weight);
      const next = Math.max(FUEL.minPollInterval, Math.floor(FUEL.pollInterval / weight));
      this.writeInterval(Math.max(1, Math.min(next, remainingSteps)));
    }
    return false;
  }

  /**
   * The prelude borrows fuel in chunks; -1 refuses (the prelude then throws and
   * the next poll interrupts). Borrowed fuel counts as used until refunded.
   */
  lease(amount: number): number {
    if (!this.counting) return amount + FUEL.leaseChunk;
    if (this.exhausted || !(amount >= 0)) return -1;
    const remaining = this.budget - this.used;
    if (remaining < amount) {
      this.used = this.budget;
      this.exhausted = true;
      return -1;
    }
    const granted = Math.min(remaining, amount + FUEL.leaseChunk);
    this.used += granted;
    return granted;
  }

  refund(amount: number): void {
    if (amount > 0) this.used -= Math.min(amount, this.used);
  }
}
