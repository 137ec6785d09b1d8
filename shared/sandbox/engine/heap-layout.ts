// Where the wasm instance keeps its state in linear memory. Memory images
// (../image/image.ts) copy exactly these regions, so they are found by probing at
// start-up and checked, never hard-coded: a later build that moves them makes
// the sandbox fall back to fresh runtimes and say so once.
//
// The emscripten build lays memory out as static data (C globals, among them
// the allocator's state and the heap's break), then the C stack growing down
// towards it, then the malloc heap growing up from the stack's top.

/** Static data is copied as this many bytes from address 0 (two wasm pages) when its end is not found. */
export const STATIC_BYTES = 2 * 65_536;
/** The C stack this build reserves between static data and the heap. */
const STACK_BYTES = 5 * 1024 * 1024;
/** Untouched bytes that must follow static data for its end to count as found. */
const STACK_FLOOR_CHECK_BYTES = 64 * 1024;

export interface HeapLayout {
  /** Bytes from address 0 that hold static data; every image copies them whole. */
  staticBytes: number;
  /** First heap address (the allocator's `least_addr`); the C stack's top lies just below. */
  heapBase: number;
  /** Address of the word holding the heap's break (sbrk): nothing above it is in use. */
  breakAddress: number;
  /** Address of the allocator's `top` pointer: the free chunk every new allocation falls back to. */
  topAddress: number;
  /** Addresses of the allocator's footprint and of its (only) segment's size, which move with the break. */
  footprintAddress: number;
  segmentSizeAddress: number;
  /** Bytes between the end of `top`'s chunk and the break (the allocator's fencepost). */
  topFootBytes: number;
}

interface EmscriptenHeap {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

const BIG_ALLOCATION = 2 * 1024 * 1024;
const MIN_STACK_BYTES = 1024 * 1024;

function words(memory: WebAssembly.Memory): Uint32Array {
  return new Uint32Array(memory.buffer);
}

/**
 * Finds the allocator's `top` pointer and the heap's break by diffing static
 * data around an allocation too big for any free chunk: `top` is the word
 * that held the returned chunk's address and moved past it, the break is the
 * word that moved by whole pages to just above the new `top`. Freeing it must
 * give the chunk back to `top` and leave the break where it is (this build
 * never trims), or images could not rely on either.
 */
export function probeHeapLayout(heap: EmscriptenHeap, memory: WebAssembly.Memory): HeapLayout | null {
  const count = STATIC_BYTES / 4;
  const before = words(memory).slice(0, count);
  const pointer = heap._malloc(BIG_ALLOCATION);
  if (pointer === 0) return null;
  const after = words(memory).slice(0, count);
  heap._free(pointer);
  const freed = words(memory).slice(0, count);
  const chunk = pointer - 8;
  const tops: number[] = [];
  for (let i = 0; i < count; i++) {
    const was = before[i] ?? 0;
    const now = after[i] ?? 0;
    if (was === chunk && now >= chunk + BIG_ALLOCATION && freed[i] === chunk) tops.push(i);
  }
  const topIndex = tops.length === 1 ? (tops[0] ?? -1) : -1;
  if (topIndex < 0) return null;
  const topAfter = after[topIndex] ?? 0;
  const breaks: number[] = [];
  for (let i = 0; i < count; i++) {
    const was = before[i] ?? 0;
    const now = after[i] ?? 0;
    const grown = now - was;
    if (grown > 0 && grown % 4096 === 0 && now > topAfter && now - topAfter < 1024 * 1024) breaks.push(i);
  }
  const breakIndex = breaks.length === 1 ? (breaks[0] ?? -1) : -1;
  if (breakIndex < 0 || freed[breakIndex] !== after[breakIndex]) return null;
  // dlmalloc's malloc_state reads {…, topsize, least_addr, dv, top, …}.
  const heapBase = freed[topIndex - 2] ?? 0;
  // The footprint, its maximum and the segment's size moved with the break;
  // the segment's size follows its base (the heap's base).
  const grownBy = (after[breakIndex] ?? 0) - (before[breakIndex] ?? 0);
  const moved: number[] = [];
  for (let i = topIndex + 1; i < count; i++)
    if (i !== breakIndex && (after[i] ?? 0) - (before[i] ?? 0) === grownBy) moved.push(i);
  const segmentSize = moved.find((i) => freed[i - 1] === heapBase);
  const footprint = moved[0];
  if (segmentSize === undefined || footprint === undefined || footprint === segmentSize) return null;
  const layout: HeapLayout = {
    staticBytes: STATIC_BYTES,
    heapBase,
    breakAddress: breakIndex * 4,
    topAddress: topIndex * 4,
    footprintAddress: footprint * 4,
    segmentSizeAddress: segmentSize * 4,
    topFootBytes: 0,
  };
  // `top`'s chunk: its size in its header (with the in-use bit of the chunk
  // before it), and a fencepost header after it holding the foot's size.
  const w = words(memory);
  const top = w[topIndex] ?? 0;
  const topSize = w[topIndex - 3] ?? 0;
  layout.topFootBytes = (w[breakIndex] ?? 0) - top - topSize;
  const headerRight = ((w[(top + 4) >> 2] ?? 0) & ~7) === topSize;
  const fenceRight = w[(top + topSize + 4) >> 2] === layout.topFootBytes;
  if (!headerRight || !fenceRight || layout.topFootBytes <= 0 || layout.topFootBytes > 64) return null;
  const plausible =
    heapBase % 8 === 0 &&
    heapBase <= chunk &&
    heapBase >= STATIC_BYTES + MIN_STACK_BYTES &&
    layout.topAddress < STATIC_BYTES &&
    layout.breakAddress < STATIC_BYTES;
  if (!plausible) return null;
  layout.staticBytes = staticEnd(memory, layout);
  return layout;
}

/**
 * Where static data ends: the stack's floor, `STACK_BYTES` below the heap,
 * when every address found lies below it and the stack's floor is untouched
 * (the stack grows down from the heap and never gets near it); else the
 * first two pages, which hold it whole in this build.
 */
function staticEnd(memory: WebAssembly.Memory, layout: HeapLayout): number {
  const floor = layout.heapBase - STACK_BYTES;
  const addresses = [
    layout.breakAddress,
    layout.topAddress,
    layout.footprintAddress,
    layout.segmentSizeAddress,
  ];
  if (floor <= 0 || floor > STATIC_BYTES || addresses.some((address) => address + 4 > floor))
    return STATIC_BYTES;
  const untouched = new Uint8Array(memory.buffer, floor, STACK_FLOOR_CHECK_BYTES).every((byte) => byte === 0);
  return untouched ? floor : STATIC_BYTES;
}

/** Bytes of free `top` an image keeps; the rest is given back to the break (trimTop). */
const TOP_KEPT_BYTES = 16 * 1024;

/**
 * Gives the free space of `top` beyond TOP_KEPT_BYTES back to the break, as
 * the allocator's own trim would (this build never trims): the break, `top`'s
 * size, its header and fencepost, the footprint and the segment's size. An
 * image taken after this ends close to its break, so a call that allocates
 * little leaves little to zero. The memory above the new break is not used
 * again until the allocator asks for it.
 */
export function trimTop(memory: WebAssembly.Memory, layout: HeapLayout): void {
  const w = words(memory);
  const top = w[layout.topAddress >> 2] ?? 0;
  const oldBreak = w[layout.breakAddress >> 2] ?? 0;
  const newBreak = Math.ceil((top + TOP_KEPT_BYTES + layout.topFootBytes) / 16) * 16;
  if (newBreak >= oldBreak) return;
  const released = oldBreak - newBreak;
  const topSize = newBreak - top - layout.topFootBytes;
  w[layout.breakAddress >> 2] = newBreak;
  w[(layout.topAddress - 12) >> 2] = topSize;
  w[(top + 4) >> 2] = ((w[(top + 4) >> 2] ?? 0) & 7) | topSize;
  w[(top + topSize + 4) >> 2] = layout.topFootBytes;
  w[layout.footprintAddress >> 2] = (w[layout.footprintAddress >> 2] ?? 0) - released;
  w[layout.segmentSizeAddress >> 2] = (w[layout.segmentSizeAddress >> 2] ?? 0) - released;
}

/** The heap's current break (nothing at or above it is in use). */
export function heapBreak(memory: WebAssembly.Memory, layout: HeapLayout): number {
  return words(memory)[layout.breakAddress >> 2] ?? 0;
}

/** The allocator's `top`: every byte in use lies below it or in a chunk it once handed out. */
export function heapTop(memory: WebAssembly.Memory, layout: HeapLayout): number {
  return words(memory)[layout.topAddress >> 2] ?? 0;
}

export interface HeapCensus {
  /** Bytes in chunks in use (headers included), below `top`. */
  used: number;
  /** Free chunks below `top`, by size in bytes (headers included). */
  free: number[];
}

/**
 * Walks every chunk from the heap's base to `top` (dlmalloc's boundary tags:
 * a chunk's size sits in its second word, and the next chunk's lowest bit says
 * whether this one is in use). Images call it once, when they are built.
 */
export function heapCensus(memory: WebAssembly.Memory, layout: HeapLayout): HeapCensus {
  const w = words(memory);
  const top = w[layout.topAddress >> 2] ?? 0;
  const census: HeapCensus = { used: 0, free: [] };
  let chunk = layout.heapBase;
  while (chunk < top) {
    const size = (w[(chunk + 4) >> 2] ?? 0) & ~7;
    if (size === 0) throw new Error("sandbox: the heap walk met an empty chunk");
    const next = chunk + size;
    if (((w[(next + 4) >> 2] ?? 0) & 1) !== 0) census.used += size;
    else census.free.push(size);
    chunk = next;
  }
  return census;
}
