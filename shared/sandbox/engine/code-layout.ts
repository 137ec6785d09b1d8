// Start-up discovery of where a function's bytecode and its size live in wasm
// memory: the object a stack frame runs, its bytecode, the bytecode's length
// and file, and the runtime's list of every GC object. Fuel prices a hook's
// steps by its largest function (../call/fuel.ts); the offsets are found by probing
// and checked, like the runtime's (layout.ts), never hard-coded.
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { QUICKJS_POLL_RESET, runtimePointer, withProbeRuntime } from "./probe-runtime";

export interface CodeLengthPath {
  frameFunctionOffset: number;
  /** Byte offset of an object's 16-bit class id, and the ids of functions with bytecode. */
  classIdOffset: number;
  bytecodeClassIds: readonly number[];
  objectBytecodeOffset: number;
  bytecodeLengthOffset: number;
  /** The atom of the file a function's bytecode was compiled from (the prelude's or the hook's). */
  filenameOffset: number;
  /** Byte offset of JSRuntime.gc_obj_list, the list of every GC object (bytecode included). */
  gcListOffset: number;
  /** The GC object type of function bytecode (the low nibble of a GC header's second word). */
  bytecodeGcType: number;
}

/** A GC object's list link follows its ref count and type word: {prev, next}. */
const GC_LINK_OFFSET = 8;

/**
 * Finds the runtime's list of GC objects: from a function's bytecode (a GC
 * object) the `next` links come back round through one node inside the
 * runtime struct, its list head.
 */
function findGcList(
  module: QuickJSWASMModule,
  memory: WebAssembly.Memory,
  stackFrameOffset: number,
  objectBytecodeOffset: number,
): { gcListOffset: number; bytecodeGcType: number } | null {
  return withProbeRuntime(module, (runtime, context) => {
    const rt = runtimePointer(runtime);
    let found: { gcListOffset: number; bytecodeGcType: number } | null = null;
    let sampled = false;
    runtime.setInterruptHandler(() => {
      if (sampled) return false;
      const w = new Uint32Array(memory.buffer);
      const frame = w[(rt + stackFrameOffset) >> 2] ?? 0;
      if (frame === 0) return false;
      sampled = true;
      const object = w[(frame + FRAME_FUNCTION_OFFSET) >> 2] ?? 0;
      const bytecode = w[(object + objectBytecodeOffset) >> 2] ?? 0;
      const start = bytecode + GC_LINK_OFFSET;
      let heads = 0;
      let head = -1;
      let node = start;
      for (let steps = 0; steps < 1_000_000; steps++) {
        node = w[(node + 4) >> 2] ?? 0;
        if (node === start) break;
        if (node === 0) return false;
        if (node >= rt && node < rt + 4096) {
          heads++;
          head = node - rt;
        }
      }
      if (node === start && heads === 1)
        found = { gcListOffset: head, bytecodeGcType: (w[(bytecode + 4) >> 2] ?? 0) & 0xf };
      return false;
    });
    const result = context.evalCode(
      `(function probe() { let x = 0; for (let i = 0; i < ${QUICKJS_POLL_RESET * 2}; i++) x++; return x; })()`,
    );
    result.dispose();
    runtime.removeInterruptHandler();
    return found;
  });
}

/**
 * The largest bytecode of a live function not compiled from `excludedFile`
 * (the prelude's file): a step of a loop or a call runs at most one
 * function's bytecode, so fuel prices every step of a hook by its largest
 * function. Walks every GC object once; images call it when they are built.
 */
export function largestFunctionBytes(
  memory: WebAssembly.Memory,
  path: CodeLengthPath,
  runtimePtr: number,
  excludedFile: number,
): number {
  const w = new Uint32Array(memory.buffer);
  const head = runtimePtr + path.gcListOffset;
  let largest = 0;
  for (
    let node = w[(head + 4) >> 2] ?? head;
    node !== head && node !== 0;
    node = w[(node + 4) >> 2] ?? head
  ) {
    const header = node - GC_LINK_OFFSET;
    if (((w[(header + 4) >> 2] ?? 0) & 0xf) !== path.bytecodeGcType) continue;
    if (w[(header + path.filenameOffset) >> 2] === excludedFile) continue;
    largest = Math.max(largest, w[(header + path.bytecodeLengthOffset) >> 2] ?? 0);
  }
  return largest;
}

/** JSValue tag of an object in the wasm32 build's NaN-boxed values (the high word). */
const OBJECT_TAG = 0xffff_ffff;
const SEARCH_WORDS = 32;
/** Where a JSObject keeps its 16-bit class id in this build (after the ref count and flag bytes). */
const CLASS_ID_OFFSET = 6;

interface FrameSample {
  classId: number;
  /** The class id of the function of the frame that called this one. */
  callerClassId: number | null;
  grid: (number | null)[][];
}

/** At the first poll inside `source`, the words reachable from the running frame's function object. */
function sampleFrameFunction(
  module: QuickJSWASMModule,
  memory: WebAssembly.Memory,
  stackFrameOffset: number,
  source: string,
  filename = "probe.js",
  /** Evaluated first (in its own file), e.g. to make atoms in another order. */
  preamble?: string,
): FrameSample | null {
  return withProbeRuntime(module, (runtime, context) => {
    const rt = runtimePointer(runtime);
    let sample: FrameSample | null = null;
    runtime.setInterruptHandler(() => {
      if (sample !== null) return false;
      const w = new Uint32Array(memory.buffer);
      const frame = w[(rt + stackFrameOffset) >> 2] ?? 0;
      if (frame === 0 || w[(frame + FRAME_FUNCTION_OFFSET + 4) >> 2] !== OBJECT_TAG) return false;
      const object = w[(frame + FRAME_FUNCTION_OFFSET) >> 2] ?? 0;
      const grid: (number | null)[][] = [];
      for (let o = 0; o < SEARCH_WORDS; o++) {
        const pointer = w[(object >> 2) + o] ?? 0;
        const valid =
          pointer > 0 && pointer % 4 === 0 && pointer + SEARCH_WORDS * 4 < memory.buffer.byteLength;
        const row: (number | null)[] = [];
        for (let l = 0; l < SEARCH_WORDS; l++) row.push(valid ? (w[(pointer >> 2) + l] ?? null) : null);
        grid.push(row);
      }
      const classOf = (fn: number) => new Uint16Array(memory.buffer)[(fn + CLASS_ID_OFFSET) >> 1] ?? 0;
      const caller = w[frame >> 2] ?? 0;
      const callerFunction = caller === 0 ? 0 : (w[(caller + FRAME_FUNCTION_OFFSET) >> 2] ?? 0);
      sample = {
        classId: classOf(object),
        callerClassId: callerFunction === 0 ? null : classOf(callerFunction),
        grid,
      };
      return false;
    });
    if (preamble !== undefined) {
      const ran = context.evalCode(preamble, "preamble.js");
      ran.dispose();
    }
    const result = context.evalCode(source, filename);
    result.dispose();
    runtime.removeInterruptHandler();
    return sample;
  });
}

/** A frame's `cur_func` follows its `prev_frame` pointer, 8-byte aligned. */
const FRAME_FUNCTION_OFFSET = 8;

/**
 * Finds where a frame's function keeps its bytecode length: at a poll inside
 * loops whose bodies are K statements long, the word that grows linearly with
 * K, reached from the frame's function object through one pointer. Polls can
 * also come from a native function's frame (a callback's call), whose object
 * has no bytecode: the class ids of the four kinds of bytecode function are
 * collected, and a native function's must not be among them.
 */
/** A probe function's body: a loop long enough to reach a poll, around `body`. */
const loop = (body: string) =>
  `let x = 0; for (let i = 0; i < ${QUICKJS_POLL_RESET * 2}; i++) { ${body} } return x;`;

export function findCodeLength(
  module: QuickJSWASMModule,
  memory: WebAssembly.Memory,
  stackFrameOffset: number,
): CodeLengthPath | null {
  const sized = [40, 160, 640].map((statements) =>
    sampleFrameFunction(
      module,
      memory,
      stackFrameOffset,
      `(function probe() { ${loop("x = x + 1;".repeat(statements))} })()`,
    ),
  );
  const [small, medium, large] = sized.map((sample) => sample?.grid);
  if (!small || !medium || !large) return null;
  let found: { o: number; l: number } | null = null;
  for (let o = 0; o < SEARCH_WORDS && found === null; o++) {
    for (let l = 0; l < SEARCH_WORDS; l++) {
      const a = small[o]?.[l];
      const b = medium[o]?.[l];
      const c = large[o]?.[l];
      if (a == null || b == null || c == null) continue;
      // 120 and 480 more statements: the same few bytes per statement.
      const perStatement = (b - a) / 120;
      if (perStatement >= 2 && perStatement <= 16 && c - b === (b - a) * 4 && a > 40 * 2 && a < 40 * 32) {
        found = { o, l };
        break;
      }
    }
  }
  if (found === null) return null;
  // The file a function was compiled from: an atom that differs between two
  // files and not between two functions of one file. Atoms are numbered as
  // they are made: a preamble that names the probe's identifiers first (and
  // keeps its own file's atom alive with a function) shifts the file's atom
  // and nothing else.
  const other = sampleFrameFunction(
    module,
    memory,
    stackFrameOffset,
    `(function probe() { ${loop("x = x + 1;".repeat(40))} })()`,
    "other.js",
    "var probe, x, i; var keep = function () {};",
  )?.grid[found.o];
  const sameFile = sized[1]?.grid[found.o];
  const smallRow = small[found.o];
  if (!other || !sameFile || !smallRow) return null;
  const filenames: number[] = [];
  for (let l = 0; l < SEARCH_WORDS; l++) {
    const a = smallRow[l];
    const b = sameFile[l];
    const c = other[l];
    if (a == null || c == null || a !== b || a === c) continue;
    // Atoms are small numbers; the preamble made a few more before this file's.
    if (a > 0 && a < 65_536 && c > a && c - a <= 16) filenames.push(l);
  }
  if (filenames.length !== 1) return null;
  const kinds = [
    `(function probe() { ${loop("x++;")} })()`,
    `(async function probe() { ${loop("x++;")} })()`,
    `(function* probe() { ${loop("x++;")} })().next()`,
    `(async function* probe() { ${loop("x++;")} })().next()`,
  ];
  const classIds = kinds.map(
    (source) => sampleFrameFunction(module, memory, stackFrameOffset, source)?.classId,
  );
  const native = sampleFrameFunction(
    module,
    memory,
    stackFrameOffset,
    `[1].forEach(function probe() { for (let i = 0; i < ${QUICKJS_POLL_RESET * 2}; i++) {} });`,
  );
  if (classIds.some((id) => id === undefined) || native === null || native.callerClassId === null)
    return null;
  const bytecodeClassIds = [...new Set(classIds as number[])];
  // Inside the callback, the calling frame is forEach's own: a native function's.
  if (!bytecodeClassIds.includes(native.classId) || bytecodeClassIds.includes(native.callerClassId))
    return null;
  const gc = findGcList(module, memory, stackFrameOffset, found.o * 4);
  if (gc === null) return null;
  return {
    ...gc,
    frameFunctionOffset: FRAME_FUNCTION_OFFSET,
    classIdOffset: CLASS_ID_OFFSET,
    bytecodeClassIds,
    objectBytecodeOffset: found.o * 4,
    bytecodeLengthOffset: found.l * 4,
    filenameOffset: (filenames[0] ?? 0) * 4,
  };
}

/**
 * The atom naming the file a function value was compiled from, read through
 * the handle's value pointer (a JSValue in wasm memory); -1 when the layout
 * is unknown or the value is not a function with bytecode.
 */
export function fileAtomOf(
  memory: WebAssembly.Memory,
  path: CodeLengthPath | null,
  valuePointer: number,
): number {
  if (path === null) return -1;
  const w = new Int32Array(memory.buffer);
  if (w[(valuePointer >> 2) + 1] !== -1) return -1;
  const object = (w[valuePointer >> 2] ?? 0) >>> 0;
  if (object === 0) return -1;
  const halfword = (w[(object + path.classIdOffset) >> 2] ?? 0) >>> ((path.classIdOffset & 2) * 8);
  if (!path.bytecodeClassIds.includes(halfword & 0xffff)) return -1;
  const bytecode = (w[(object + path.objectBytecodeOffset) >> 2] ?? 0) >>> 0;
  return bytecode === 0 ? -1 : (w[(bytecode + path.filenameOffset) >> 2] ?? -1);
}
