// The loop meter of the engine's native code. The sandbox's wasm is built
// with one (scripts/meter-wasm.mjs): every loop turn of QuickJS's C code
// outside its interpreter loop counts a word in linear memory down. When a
// quantum of turns is used up the interpreter is made to poll at its next
// step, so the fuel meter charges native turns (../call/fuel.ts) within a quantum of
// their happening, however few steps took them: a step whose built-in walks
// a value the heap price does not see (two ropes compared, which `s += s`
// builds) pays for its length. A hard stop traps the instance when one
// built-in runs a whole phase's turns without ever returning to a step;
// the trap retires the instance, as every trap does, and the hook's call
// fails with hook_timeout.
//
// The words lie deep in the C stack's unused part (the build checks that),
// outside every memory image, so restoring an image never touches them: each
// phase arms them, a call that parks keeps them, and host code between calls
// runs with them out of reach.
import { LIMITS } from "../../limits";

export interface NativeMeter {
  /** Address of the meter's first word in linear memory. */
  readonly address: number;
  /** Turns each phase gets before the hard stop (LIMITS.nativeLoopTurns; tests set less). */
  readonly turns: number;
}

const SECTION = "rayrun.meter";
/** Word indices from the address, as the build lays them out. */
const LEFT = 0;
const TARGET = 1;
const SAVED = 2;
const FORCED = 3;
const QUANTA = 4;
const QUANTUM = 5;
const WORDS = 6;
/** Turns between polls the meter forces: about a millisecond of the fastest loops. */
export const NATIVE_QUANTUM = 1 << 20;
/** What host code between calls runs with: counts it cannot use up. */
const UNBOUNDED = 0x7fff_ffff;

/** The meter the module was built with, or null for a build without one. */
export function meterOf(
  module: WebAssembly.Module,
  turns: number = LIMITS.nativeLoopTurns,
): NativeMeter | null {
  const [section] = WebAssembly.Module.customSections(module, SECTION);
  if (section === undefined || section.byteLength < 4) return null;
  return { address: new DataView(section).getUint32(0, true), turns };
}

interface Metered {
  readonly meter: NativeMeter | null;
  readonly memory: WebAssembly.Memory;
}

function words(engine: Metered): Int32Array | null {
  const meter = engine.meter;
  return meter === null ? null : new Int32Array(engine.memory.buffer, meter.address, WORDS);
}

/**
 * Arms the meter for a phase that starts now: its turns, in quanta, and the
 * interrupt counter a used-up quantum sets to 1 (0: polls are not forced).
 */
export function armNativeTurns(engine: Metered, interruptCounter: number): void {
  const word = words(engine);
  const meter = engine.meter;
  if (word === null || meter === null) return;
  // The turn that brings the last quantum to zero traps: `turns` turns run, the next one stops.
  // The first quantum is the remainder, so that turn is exact.
  const trapAt = meter.turns + 1;
  const quanta = Math.ceil(trapAt / NATIVE_QUANTUM);
  word[LEFT] = trapAt - (quanta - 1) * NATIVE_QUANTUM;
  word[TARGET] = interruptCounter;
  word[SAVED] = 0;
  word[FORCED] = 0;
  word[QUANTA] = quanta;
  word[QUANTUM] = NATIVE_QUANTUM;
}

/**
 * Host code runs next: the counts are put out of its reach and polls are
 * no longer forced, unless the phase hit the hard stop (the instance trapped
 * then, and the trap is read from the meter).
 */
export function releaseNativeTurns(engine: Metered): void {
  const word = words(engine);
  if (word !== null && word[QUANTA] !== 0) unbound(word);
}

/** Before the instance's start-up code runs, whose loops no phase has armed the meter for. */
export function startNativeMeter(engine: Metered): void {
  const word = words(engine);
  if (word !== null) unbound(word);
}

function unbound(word: Int32Array): void {
  word[LEFT] = UNBOUNDED;
  word[TARGET] = 0;
  word[FORCED] = 0;
  word[QUANTA] = UNBOUNDED;
  word[QUANTUM] = UNBOUNDED;
}

/** Turns left before the hard stop; it only falls within a phase (0 without a meter). */
export function nativeTurnsLeft(engine: Metered): number {
  const word = words(engine);
  if (word === null) return 0;
  return ((word[QUANTA] ?? 1) - 1) * (word[QUANTUM] ?? 0) + (word[LEFT] ?? 0);
}

/**
 * The interrupt counter's value when the meter forced a poll that has not
 * been accounted for, or null; the force is cleared (the caller accounts it).
 */
export function takeForcedPoll(engine: Metered): number | null {
  const word = words(engine);
  if (word === null || word[FORCED] === 0) return null;
  word[FORCED] = 0;
  return word[SAVED] ?? 0;
}

/** True when a trap was the meter's: the phase hit its hard stop. */
export function nativeTurnsSpent(engine: Metered): boolean {
  const word = words(engine);
  return word !== null && word[QUANTA] === 0;
}

/** The meter's words of a call that parks, to put back when it resumes. */
export function saveNativeTurns(engine: Metered): Int32Array | null {
  return words(engine)?.slice() ?? null;
}

export function restoreNativeTurns(engine: Metered, saved: Int32Array | null): void {
  if (saved !== null) words(engine)?.set(saved);
}
