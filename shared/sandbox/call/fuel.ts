// Deterministic time budget. Wall clocks are frozen during CPU work on
// Workers, so time is bounded by counting work instead:
//  - interpreter steps, via QuickJS's interrupt poll (the counter is shortened
//    so polls come every FUEL.pollInterval steps and the count is exact),
//  - regex backtracking polls, told apart because they leave the counter alone,
//  - size-proportional built-ins, charged by the prelude through `lease`,
//  - loop turns of the engine's native code (../engine/native-meter.ts), charged at
//    every poll; the native meter forces a poll after a quantum of turns, so
//    a step whose built-in walks a value the heap price does not see (a
//    rope, which `s += s` builds) pays for its length within a quantum.
// A step (a loop iteration or a call) is priced by what can make one step
// slow: the bytecode of the function it runs (straight-line code), the heap
// the hook holds (operators and syntax that walk a whole string or object:
// comparisons, `for…in`, spread, conversions) and the stack depth (errors
// walk every frame). The same code and input always burn the same fuel.
import type { Instance } from "../engine/instance";
import { QUICKJS_POLL_RESET } from "../engine/layout";
import { armNativeTurns, nativeTurnsLeft, takeForcedPoll } from "../engine/native-meter";
import { LEASE_CHUNK, SETUP_STEPS } from "../engine/vm";

/**
 * Fuel per millisecond of a hook's time (a request hook's `timeout_ms`, what is
 * left of it for a nested lambda, a plugin hook's bound). The default 5000 ms buys exactly
 * LIMITS.fuelPerInvocation. Measured in workerd (docs/request-hooks.md, "Fuel
 * calibration"): 200 units take 0.01–0.25 ms of CPU, so a hook's CPU work
 * always stops well inside its `timeout_ms`.
 */
export const FUEL_PER_MS = 200;

export const FUEL = {
  /** Interpreter steps between polls once the counter is found. */
  pollInterval: 512,
  /** Shortest interval when steps are dear (each may be costly then). */
  minPollInterval: 32,
  /** A regex poll stands for 10k backtracking steps, each slower than a bytecode step. */
  regexPollCost: 12_000,
  /** Fuel handed to the prelude per host round trip, so cheap calls stay in JS. */
  leaseChunk: LEASE_CHUNK,
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
  stackBytesPerExtraStepCost: 512,
  freeStackBytes: 4096,
  /**
   * Heap the hook holds (its module's data and what the call allocated, not
   * its bytecode) that one step may walk at no extra charge, and the bytes
   * per extra step beyond. The slowest operator measured (`+s` on a string of
   * whitespace) takes ~1.2 ns per byte, so a step is never dearer than about
   * 5 µs per unit of its price; see docs/sandbox.md.
   */
  freeHeapBytes: 4096,
  heapBytesPerExtraStepCost: 3072,
  /**
   * Bytecode of the running function that one step may execute at no extra
   * charge, and the bytes per extra step beyond (straight-line code costs up
   * to ~3.5 ns per bytecode byte).
   */
  freeCodeBytes: 1024,
  codeBytesPerExtraStepCost: 1024,
  /**
   * Native loop turns per unit. The fastest loops (comparing two strings)
   * turn about once a nanosecond, so a unit of them is a few hundred ns; an
   * ordinary stage turns a few thousand times (a few percent of its fuel).
   */
  nativeTurnsPerUnit: 256,
  /** Steps allowed for our own set-up code (prelude), never charged to the hook. */
  setupSteps: SETUP_STEPS,
} as const;

/** How many bytes of heap the hook holds now (its image's data plus the call's growth). */
export type HeapGauge = () => number;

export class FuelMeter {
  used = 0;
  exhausted = false;
  private counting = false;
  private lastWritten = QUICKJS_POLL_RESET;
  private view: Int32Array;
  /** The price of a step when the current poll interval was chosen. */
  private intervalWeight = 1;
  /** The most heap the hook has held in this phase: prices never fall back within a phase. */
  private peakHeld = 0;
  /** Units charged so far for the heap and code (beyond one unit and the stack per step). */
  private dataCharged = 0;
  /** The native meter's count when native turns were last charged. */
  private lastTurns = 0;
  /** Each prelude walk in progress: the heap held and the data units charged when it began. */
  private readonly walks: { held: number; charged: number; pure: boolean }[] = [];
  /** Walks in progress that run no hook code: their steps pay no data price at all. */
  private pureWalks = 0;

  constructor(
    public budget: number,
    private readonly engine: Instance,
    private readonly contextPtr: number,
    private readonly runtimePtr: number,
    private readonly heldBytes: HeapGauge,
    /** The hook's largest function, in bytes of bytecode (largestFunctionBytes). */
    public codeBytes: number,
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

  /** The runtime's live allocations (8 bytes of malloc_size each, see ../engine/layout.ts). */
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

  /** Heap the hook holds, as its most in this phase. */
  held(): number {
    const now = this.heldBytes();
    if (now > this.peakHeld) this.peakHeld = now;
    return this.peakHeld;
  }

  /** What one step costs beyond one unit for holding `held` bytes and running the hook's code. */
  private dataPrice(held: number): number {
    const code = this.codeBytes - FUEL.freeCodeBytes;
    const heap = held - FUEL.freeHeapBytes;
    return (
      (code > 0 ? code / FUEL.codeBytesPerExtraStepCost : 0) +
      (heap > 0 ? heap / FUEL.heapBytesPerExtraStepCost : 0)
    );
  }

  /**
   * What one step costs now, in units: one, plus what its stack depth, the
   * hook's largest function and the heap held can make one step cost. Code
   * and heap are properties of the hook's state, not of the frame a poll
   * lands in, so no choice of where polls land can lower them.
   */
  weight(): number {
    return this.stackPrice() + this.dataPrice(this.held());
  }

  private stackPrice(): number {
    const deep = this.stackDepthBytes() - FUEL.freeStackBytes;
    return 1 + (deep > 0 ? deep / FUEL.stackBytesPerExtraStepCost : 0);
  }

  /** Charges the native loop turns taken since the last charge. */
  private chargeNative(): void {
    const left = nativeTurnsLeft(this.engine);
    const turns = this.lastTurns - left;
    this.lastTurns = left;
    if (turns > 0) this.add(turns / FUEL.nativeTurnsPerUnit);
  }

  /**
   * Steps taken since the interval was written, the interrupt counter now
   * reading `left`. A poll the native meter forced set the counter to 1 from
   * the value it saved, so the steps before it count as well.
   */
  private stepsTaken(left: number): number {
    const saved = takeForcedPoll(this.engine);
    const steps = saved === null ? this.lastWritten - left : this.lastWritten - saved + (1 - left);
    return Math.max(0, steps);
  }

  /** Charges `steps` steps at the current prices. */
  private chargeSteps(steps: number): void {
    const data = this.pureWalks > 0 ? 0 : steps * this.dataPrice(this.held());
    this.dataCharged += data;
    this.add(steps * this.stackPrice() + data);
  }

  /** Charges the steps taken since the last poll now and starts a new interval (a walk's edge). */
  private settle(): void {
    const index = this.counterIndex();
    if (!this.counting || index === null || this.exhausted) return;
    this.chargeNative();
    this.chargeSteps(this.stepsTaken(this.words()[index] ?? 0));
    if (!this.exhausted) this.writeInterval(this.nextInterval(this.weight()));
  }

  /**
   * The prelude starts a loop of its own over hook data (serialising a
   * value, splitting a string). Its steps do constant work each, so they
   * should not pay for the heap and code. A `pure` loop calls no hook code
   * (the split checks that nothing it observes was changed): its steps pay
   * no data price until it ends. Any other loop (the serialisation walk runs
   * getters) pays as it goes and gets back, at each report, the data price
   * of the steps it counted as its own (refundWalk). The interval in
   * progress is charged at the mark, so no step taken before it is affected.
   */
  markWalk(pure: boolean): number {
    this.settle();
    this.walks.push({ held: this.held(), charged: this.dataCharged, pure });
    if (pure) this.pureWalks++;
    return this.walks.length - 1;
  }

  /**
   * The loop begun at `mark` took `steps` steps of its own since (ignored
   * for a pure one): refunds their data price, at the price when it began
   * (prices never fall within a phase, so that is a floor) and never more
   * than was charged since. The mark is spent.
   */
  refundWalk(mark: number, steps: number): void {
    this.settle();
    const walk = this.walks[mark];
    if (walk === undefined) return;
    for (const ended of this.walks.splice(mark)) if (ended.pure) this.pureWalks--;
    if (walk.pure || this.exhausted) return;
    const charged = this.dataCharged - walk.charged;
    this.refund(Math.min(charged, Math.max(0, steps) * this.dataPrice(walk.held)));
  }

  /**
   * Polls come every `pollInterval / weight` steps, chosen at the last poll.
   * Built-ins the prelude meters (and so leases fuel for) can grow the heap
   * a lot in one step; when the price has since doubled, the interval in
   * progress is charged and a shorter one begins, so the steps after the
   * growth are not counted at the old price.
   */
  retune(): void {
    if (!this.counting || this.weight() < this.intervalWeight * 2) return;
    this.settle();
  }

  private nextInterval(weight: number): number {
    this.intervalWeight = weight;
    const remainingSteps = Math.ceil((this.budget - this.used) / weight);
    const next = Math.max(FUEL.minPollInterval, Math.floor(FUEL.pollInterval / weight));
    return Math.max(1, Math.min(next, remainingSteps));
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
    this.peakHeld = 0;
    this.dataCharged = 0;
    this.walks.length = 0;
    this.pureWalks = 0;
  }

  /** Start charging the hook: from here on every step costs fuel. */
  begin(): void {
    this.counting = true;
    const index = this.counterIndex();
    armNativeTurns(this.engine, index === null ? 0 : index * 4);
    this.lastTurns = nativeTurnsLeft(this.engine);
    this.writeInterval(this.nextInterval(this.weight()));
  }

  /** Stop charging; counts the steps taken since the last poll, at the price a poll now would charge. */
  finish(): void {
    if (!this.counting) return;
    this.chargeNative();
    const index = this.counterIndex();
    if (index !== null) this.chargeSteps(this.stepsTaken(this.words()[index] ?? 0));
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
    if (!this.counting) return false;
    if (this.exhausted) return true;
    const index = this.counterIndex();
    this.chargeNative();
    if (index === null) {
      // Fallback: every poll (regex or not) stands for a full default interval.
      this.chargeSteps(QUICKJS_POLL_RESET);
      return this.exhausted;
    }
    const isStepPoll = this.words()[index] === QUICKJS_POLL_RESET;
    if (isStepPoll) {
      const saved = takeForcedPoll(this.engine);
      if (saved !== null && saved > 1) {
        // The native meter asked for this poll to charge its turns, one step into an interval that
        // had `saved` to go. The interval goes on as if it had not come, so steps are priced where
        // they would be without the meter (a poll here could catch a passing heap peak).
        if (this.exhausted) return true;
        this.words()[index] = saved - 1;
        return false;
      }
      // The interval is over: the counter had just reached zero (the engine resets it before calling us).
      this.chargeSteps(this.lastWritten);
    } else this.add(FUEL.regexPollCost);
    if (this.exhausted) return true;
    if (isStepPoll) this.writeInterval(this.nextInterval(this.weight()));
    return false;
  }

  /**
   * The prelude borrows fuel in chunks; -1 refuses (the prelude then throws and
   * the next poll interrupts). Borrowed fuel counts as used until refunded.
   */
  lease(amount: number): number {
    if (!this.counting) return amount + FUEL.leaseChunk;
    if (this.exhausted || !(amount >= 0)) return -1;
    this.retune();
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
