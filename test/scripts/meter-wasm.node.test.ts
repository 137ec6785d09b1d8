// The loop meter the build adds to the sandbox's wasm, on a module small
// enough to count its turns: one exported function whose loop turns exactly
// `n` times. Run in Node, which (unlike workerd) compiles wasm at run time.
import { describe, expect, it } from "vitest";
import { meterWasm, sleb as leb } from "../../scripts/meter-wasm.mjs";
import { LIMITS } from "../../shared/limits";
import {
  armNativeTurns,
  meterOf,
  NATIVE_QUANTUM,
  nativeTurnsLeft,
  nativeTurnsSpent,
  releaseNativeTurns,
  startNativeMeter,
  takeForcedPoll,
  type NativeMeter,
} from "../../shared/sandbox/engine/native-meter";

/** Node compiles wasm from bytes at run time; the Workers types this folder is checked with do not declare it. */
const compile = (bytes: Uint8Array): Promise<WebAssembly.Module> =>
  (WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> }).compile(bytes);

const PAGES = 80;
const STACK_TOP = PAGES * 65_536;

const section = (id: number, content: number[]): number[] => [id, ...leb(content.length), ...content];

/** (memory imported as a.m) (global $sp (mut i32)) (func (export "spin") (param $n i32) (loop … br_if)) */
function spinModule(): Uint8Array {
  const body = [0x00, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b, 0x0b];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x00]),
    ...section(2, [0x01, 0x01, 0x61, 0x01, 0x6d, 0x02, 0x00, ...leb(PAGES)]),
    ...section(3, [0x01, 0x00]),
    ...section(6, [0x01, 0x7f, 0x01, 0x41, ...leb(STACK_TOP), 0x0b]),
    ...section(7, [0x01, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x00]),
    ...section(10, [0x01, body.length, ...body]),
  ]);
}

async function metered(turns: number) {
  const { bytes } = meterWasm(spinModule());
  const module = await compile(bytes);
  const meter = meterOf(module, turns);
  if (meter === null) throw new Error("the metered module has no meter section");
  const memory = new WebAssembly.Memory({ initial: PAGES });
  const engine: { meter: NativeMeter; memory: WebAssembly.Memory } = { meter, memory };
  startNativeMeter(engine);
  const instance = await WebAssembly.instantiate(module, { a: { m: memory } });
  const spin = instance.exports.spin as (n: number) => void;
  return { engine, spin, memory };
}

describe("the native loop meter", () => {
  it(`allows exactly LIMITS.nativeLoopTurns turns in a phase: at the limit passes, one over traps`, async () => {
    const { engine, spin } = await metered(LIMITS.nativeLoopTurns);
    armNativeTurns(engine, 0);
    spin(LIMITS.nativeLoopTurns);
    expect(nativeTurnsSpent(engine)).toBe(false);
    armNativeTurns(engine, 0);
    expect(() => spin(LIMITS.nativeLoopTurns + 1)).toThrow(WebAssembly.RuntimeError);
    expect(nativeTurnsSpent(engine)).toBe(true);
  });

  it("counts every turn: what is left falls by the turns run, across quanta", async () => {
    const { engine, spin } = await metered(10 * NATIVE_QUANTUM);
    armNativeTurns(engine, 0);
    const before = nativeTurnsLeft(engine);
    spin(3 * NATIVE_QUANTUM + 12_345);
    expect(before - nativeTurnsLeft(engine)).toBe(3 * NATIVE_QUANTUM + 12_345);
  });

  it("forces a poll after a quantum: the interrupt counter is set to 1 and its value kept, once until taken", async () => {
    // The phase's first quantum is what its turns leave over whole quanta: none here.
    const { engine, spin, memory } = await metered(10 * NATIVE_QUANTUM - 1);
    const counter = 4096;
    const words = new Int32Array(memory.buffer);
    words[counter >> 2] = 777;
    armNativeTurns(engine, counter);
    spin(NATIVE_QUANTUM - 10);
    expect(words[counter >> 2]).toBe(777);
    expect(takeForcedPoll(engine)).toBeNull();
    spin(NATIVE_QUANTUM);
    expect(words[counter >> 2]).toBe(1);
    // A second quantum before the poll came keeps the first saved value.
    words[counter >> 2] = 1;
    spin(NATIVE_QUANTUM);
    expect(takeForcedPoll(engine)).toBe(777);
    expect(takeForcedPoll(engine)).toBeNull();
  });

  it("host code between phases runs unbounded and forces no poll; a phase that hit its stop stays readable as such", async () => {
    const { engine, spin, memory } = await metered(NATIVE_QUANTUM);
    const words = new Int32Array(memory.buffer);
    armNativeTurns(engine, 4096);
    releaseNativeTurns(engine);
    words[1024] = 5;
    spin(4 * NATIVE_QUANTUM);
    expect(words[1024]).toBe(5);
    expect(nativeTurnsSpent(engine)).toBe(false);
    armNativeTurns(engine, 0);
    expect(() => spin(2 * NATIVE_QUANTUM)).toThrow(WebAssembly.RuntimeError);
    releaseNativeTurns(engine);
    expect(nativeTurnsSpent(engine)).toBe(true);
  });

  it("puts the meter deep below the C stack's top and names it in the module", async () => {
    const { bytes, address, loops, unmetered } = meterWasm(spinModule());
    expect({ loops, unmetered }).toEqual({ loops: 1, unmetered: 0 });
    expect(address).toBe(STACK_TOP - 4 * 1024 * 1024);
    expect(meterOf(await compile(bytes))?.address).toBe(address);
    expect(meterOf(await compile(spinModule()))).toBeNull();
  });
});
