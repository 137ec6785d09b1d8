// Start-up discovery of fields inside QuickJS structs in wasm memory (the
// runtime's; where a function's bytecode and size live is in code-layout.ts).
// The offsets depend on the exact QuickJS build (pinned via package.json), so
// they are found by probing and verified, never hard-coded: if a later build
// moves them, the sandbox still works with coarser metering and says so once.
import type { QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import { findCodeLength, type CodeLengthPath } from "./code-layout";
import { contextPointer, QUICKJS_POLL_RESET, runtimePointer, withProbeRuntime } from "./probe-runtime";

export type { CodeLengthPath } from "./code-layout";
export { largestFunctionBytes } from "./code-layout";
export { contextPointer, QUICKJS_POLL_RESET, runtimePointer } from "./probe-runtime";

export interface EngineLayout {
  /** Byte offset of JSContext.interrupt_counter from the context pointer, if found. */
  interruptCounterOffset: number | null;
  /**
   * Byte offset of JSRuntime.malloc_state.malloc_size from the runtime pointer.
   * In this emscripten build `malloc_usable_size` is stubbed to 0, so the field
   * grows by a fixed 8 bytes per live allocation: it measures allocation
   * count, not bytes (and it is what `setMemoryLimit` compares against).
   */
  mallocSizeOffset: number | null;
  /**
   * Byte offset of JSRuntime.current_stack_frame, and that pointer's value for
   * top-level code. Frames live on the wasm stack, so base minus the current
   * value is how deep the hook is, in bytes.
   */
  stackFrameOffset: number | null;
  stackBase: number;
  /**
   * How to read the bytecode length of the function a frame runs: the frame's
   * `cur_func` (an object value) at `frameFunctionOffset`, the object's
   * bytecode pointer at `objectBytecodeOffset`, the length at
   * `bytecodeLengthOffset`. A loop's one step runs at most its function's
   * bytecode, so fuel prices steps by it.
   */
  codeLength: CodeLengthPath | null;
}

const SCAN_BYTES = 4096;
const PROBE_LIMIT = 0x3a5c_7e91 & ~7; // an unlikely value, multiple of 8

function findMallocSize(runtime: QuickJSRuntime, memory: WebAssembly.Memory): number | null {
  const rt = runtimePointer(runtime);
  runtime.setMemoryLimit(PROBE_LIMIT);
  const words = new Int32Array(memory.buffer, rt, 64);
  let limitIndex = -1;
  for (let i = 2; i < words.length; i++)
    if (words[i] === PROBE_LIMIT) limitIndex = limitIndex === -1 ? i : -2;
  runtime.setMemoryLimit(-1);
  if (limitIndex < 0) return null;
  // Layout is {malloc_count, malloc_size, malloc_limit}: check the relation.
  const count = words[limitIndex - 2] ?? 0;
  const size = words[limitIndex - 1] ?? 0;
  return count > 0 && size >= count ? (limitIndex - 1) * 4 : null;
}

/** Runs a short loop and looks for the word that holds the reset value at every poll. */
function findInterruptCounter(module: QuickJSWASMModule, memory: WebAssembly.Memory): number | null {
  return withProbeRuntime(module, (runtime, context) => {
    const base = contextPointer(context);
    let candidates: number[] | null = null;
    let polls = 0;
    let probeWrites = 0;
    let verified = false;
    runtime.setInterruptHandler(() => {
      polls++;
      const words = new Int32Array(memory.buffer, base, SCAN_BYTES / 4);
      if (candidates === null) {
        candidates = [];
        for (let i = 0; i < words.length; i++) if (words[i] === QUICKJS_POLL_RESET) candidates.push(i);
      } else {
        candidates = candidates.filter((i) => words[i] === QUICKJS_POLL_RESET);
      }
      // With exactly one candidate left, shorten the interval and check the
      // next polls come sooner, which only the real counter can cause.
      if (candidates.length === 1) {
        const index = candidates[0] ?? 0;
        words[index] = 7;
        probeWrites++;
      }
      return false;
    });
    const steps = QUICKJS_POLL_RESET * 6;
    const result = context.evalCode(`let x = 0; for (let i = 0; i < ${steps}; i++) x += i; x`);
    result.dispose();
    runtime.removeInterruptHandler();
    const found = candidates as number[] | null;
    // Unshortened, the loop polls ~12 times; shortened to 7, thousands.
    verified = found !== null && found.length === 1 && probeWrites > 1000 && polls > 1000;
    return verified && found !== null ? (found[0] ?? 0) * 4 : null;
  });
}

const RUNTIME_SCAN_WORDS = 256;

/** The value every poll of a phase agrees on (polls outside any frame read 0). */
function settled(polls: Uint32Array[], word: number): number | null {
  const values = polls.map((p) => p[word] ?? 0).filter((v) => v !== 0);
  const first = values[0];
  return first !== undefined && values.length >= 2 && values.every((v) => v === first) ? first : null;
}

/** Finds the runtime word that tracks the JS call depth: it moves by a fixed amount per frame. */
function findStackFrame(
  module: QuickJSWASMModule,
  memory: WebAssembly.Memory,
): { offset: number; base: number } | null {
  return withProbeRuntime(module, (runtime, context) => {
    const rt = runtimePointer(runtime);
    let samples: Uint32Array[] = [];
    runtime.setInterruptHandler(() => {
      samples.push(new Uint32Array(memory.buffer, rt, RUNTIME_SCAN_WORDS).slice());
      return false;
    });
    const loop = `for (let i = 0; i < ${QUICKJS_POLL_RESET * 3}; i++) {}`;
    const phase = (code: string): Uint32Array[] => {
      samples = [];
      const result = context.evalCode(code, "probe.js", { type: "global" });
      result.dispose();
      return samples;
    };
    const atDepth = (depth: number) =>
      phase(`(function r(n) { if (n === 0) { ${loop}; return 0; } return r(n - 1); })(${depth});`);
    const phases = [phase(loop), atDepth(10), atDepth(30), atDepth(50)];
    runtime.removeInterruptHandler();
    for (let word = 0; word < RUNTIME_SCAN_WORDS; word++) {
      const [top, d10, d30, d50] = phases.map((polls) => settled(polls, word));
      if (top == null || d10 == null || d30 == null || d50 == null) continue;
      const perFrame = (d10 - d30) / 20;
      if (perFrame >= 32 && perFrame <= 4096 && d30 - d50 === d10 - d30 && top > d10)
        return { offset: word * 4, base: top };
    }
    return null;
  });
}

export function probeLayout(module: QuickJSWASMModule, memory: WebAssembly.Memory): EngineLayout {
  const interruptCounterOffset = findInterruptCounter(module, memory);
  const mallocSizeOffset = withProbeRuntime(module, (runtime) => findMallocSize(runtime, memory));
  const stack = findStackFrame(module, memory);
  return {
    interruptCounterOffset,
    mallocSizeOffset,
    stackFrameOffset: stack ? stack.offset : null,
    stackBase: stack ? stack.base : 0,
    codeLength: stack ? findCodeLength(module, memory, stack.offset) : null,
  };
}
