// Memory images: the bytes of a wasm instance's state (static data and the
// heap up to the allocator's `top`), copied out once and written back before
// every call, so each call starts from exactly the state the image was taken
// in. A copy of a few hundred KB is a few microseconds; rebuilding a runtime,
// context and prelude is milliseconds.
//
// Images of one code share most bytes with the base they were built from
// (runtime, context, prelude), so they are kept as the runs of words that
// differ from it plus what lies above its end; `expand` turns one back into
// whole bytes for the codes in use.
import type { HeapLayout } from "../engine/heap-layout";

/** Whole bytes of a state: static data and the heap from its base to `end`. */
export interface Snapshot {
  readonly static: Uint8Array;
  readonly heap: Uint8Array;
  /** First heap address past the image (just above `top`'s chunk header). */
  readonly end: number;
  /** The allocator's `top` when the image was taken. */
  readonly top: number;
}

/** A snapshot stored as its differences from a base snapshot. */
export interface Delta {
  readonly base: Snapshot;
  /** [offset, words, …] into static data, in 32-bit words; data in `staticData`. */
  readonly staticRuns: Int32Array;
  readonly staticData: Int32Array;
  /** [offset, words, …] into the heap below the base's end, in 32-bit words. */
  readonly heapRuns: Int32Array;
  readonly heapData: Int32Array;
  /** The heap from the base's end to this image's end. */
  readonly tail: Uint8Array;
  readonly end: number;
  readonly top: number;
}

/** Bytes a delta holds (its runs, data and tail), for the image store's bound. */
export function deltaBytes(delta: Delta): number {
  return (
    delta.staticRuns.byteLength +
    delta.staticData.byteLength +
    delta.heapRuns.byteLength +
    delta.heapData.byteLength +
    delta.tail.byteLength
  );
}

/** Bytes a snapshot holds. */
export function snapshotBytes(snapshot: Snapshot): number {
  return snapshot.static.byteLength + snapshot.heap.byteLength;
}

/** `top`'s chunk header is part of the state; the free space above it is not. */
const TOP_HEADER_BYTES = 16;

/** Copies the current state out of memory. */
export function capture(memory: WebAssembly.Memory, layout: HeapLayout): Snapshot {
  const bytes = new Uint8Array(memory.buffer);
  const top = new Uint32Array(memory.buffer)[layout.topAddress >> 2] ?? 0;
  const end = top + TOP_HEADER_BYTES;
  return {
    static: bytes.slice(0, layout.staticBytes),
    heap: bytes.slice(layout.heapBase, end),
    end,
    top,
  };
}

/**
 * Writes `snapshot` into memory. `dirtyEnd` bounds what the previous state
 * may have left above the snapshot's end; that is zeroed, so a call never
 * meets another call's bytes in fresh allocations.
 */
export function restore(
  memory: WebAssembly.Memory,
  layout: HeapLayout,
  snapshot: Snapshot,
  dirtyEnd: number,
): void {
  const bytes = new Uint8Array(memory.buffer);
  bytes.set(snapshot.static, 0);
  bytes.set(snapshot.heap, layout.heapBase);
  if (dirtyEnd > snapshot.end) bytes.fill(0, snapshot.end, dirtyEnd);
}

/** Whole bytes of a delta's state, for restoring it with one copy per region. */
export function expand(delta: Delta): Snapshot {
  const base = delta.base;
  const staticBytes = base.static.slice();
  const heap = new Uint8Array(delta.end - (base.end - base.heap.byteLength));
  heap.set(base.heap, 0);
  heap.set(delta.tail, base.heap.byteLength);
  patch(new Int32Array(staticBytes.buffer), 0, delta.staticRuns, delta.staticData);
  patch(new Int32Array(heap.buffer), 0, delta.heapRuns, delta.heapData);
  return { static: staticBytes, heap, end: delta.end, top: delta.top };
}

function patch(target: Int32Array, at: number, runs: Int32Array, data: Int32Array): void {
  let from = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const offset = at + (runs[i] ?? 0);
    const length = runs[i + 1] ?? 0;
    // Most runs are a few words: a loop beats making a subarray for each.
    if (length <= 16) {
      for (let j = 0; j < length; j++) target[offset + j] = data[from + j] ?? 0;
    } else {
      target.set(data.subarray(from, from + length), offset);
    }
    from += length;
  }
}

/**
 * Runs of differing words merged across gaps shorter than this: a run costs
 * more to apply than copying a few equal words along with it.
 */
const MERGE_GAP_WORDS = 16;

function diffWords(current: Int32Array, base: Int32Array): { runs: Int32Array; data: Int32Array } {
  const runs: number[] = [];
  const length = Math.min(current.length, base.length);
  let i = 0;
  while (i < length) {
    if (current[i] === base[i]) {
      i++;
      continue;
    }
    const start = i;
    let last = i;
    for (i++; i < length && i - last <= MERGE_GAP_WORDS; i++) if (current[i] !== base[i]) last = i;
    runs.push(start, last - start + 1);
    i = last + 1;
  }
  let total = 0;
  for (let r = 1; r < runs.length; r += 2) total += runs[r] ?? 0;
  const data = new Int32Array(total);
  let to = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r] ?? 0;
    const count = runs[r + 1] ?? 0;
    data.set(current.subarray(start, start + count), to);
    to += count;
  }
  return { runs: Int32Array.from(runs), data };
}

/** The current state of memory as a delta from `base` (which must have been restored before it). */
export function captureDelta(memory: WebAssembly.Memory, layout: HeapLayout, base: Snapshot): Delta {
  const top = new Uint32Array(memory.buffer)[layout.topAddress >> 2] ?? 0;
  const end = Math.max(top + TOP_HEADER_BYTES, base.end);
  const heapWords = (Math.min(end, base.end) - layout.heapBase) >> 2;
  const staticDiff = diffWords(
    new Int32Array(memory.buffer, 0, layout.staticBytes >> 2),
    new Int32Array(base.static.buffer, base.static.byteOffset, base.static.byteLength >> 2),
  );
  const heapDiff = diffWords(
    new Int32Array(memory.buffer, layout.heapBase, heapWords),
    new Int32Array(base.heap.buffer, base.heap.byteOffset, heapWords),
  );
  return {
    base,
    staticRuns: staticDiff.runs,
    staticData: staticDiff.data,
    heapRuns: heapDiff.runs,
    heapData: heapDiff.data,
    tail: new Uint8Array(memory.buffer).slice(base.end, end),
    end,
    top,
  };
}
