#!/usr/bin/env node
// Builds the sandbox's QuickJS wasm with a loop meter: every loop of the
// engine's native code counts down a word in linear memory; a used-up quantum
// makes the interpreter poll, and a phase's last one traps (native-meter.ts).
// Fuel prices the hook's JS steps, but some built-ins spend
// time in one step that the heap does not show (comparing two ropes, which
// `s += s` builds, walks millions of characters in one step); the meter
// bounds that native work whatever the step. The interpreter's own dispatch
// loop (in the largest function with a loop around a jump table of more than
// 64 targets) is left out: fuel already prices each of its turns.
//
// Run by `npm ci` (postinstall) and by the scripts that need the file; it
// writes shared/sandbox/wasm/quickjs-metered.wasm (not committed: it is derived
// from the @jitl/quickjs-wasmfile-release-sync package) with a custom section
// `rayrun.meter` holding the counter's address, which the engine reads from
// the compiled module. Written by hand: no package on npm rewrites wasm
// instructions in a few hundred lines without a native toolchain (binaryen's
// JS build is ~10 MB and has no pass for this).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const METERED_WASM = join(root, "shared/sandbox/wasm/quickjs-metered.wasm");
const SOURCE_WASM = require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");

/** A jump table this large is an interpreter's dispatch, not a loop over data. */
const DISPATCH_TARGETS = 64;
/** The counter sits this far below the C stack's top: QuickJS stops JS far above it (64 KiB). */
const METER_DEPTH = 4 * 1024 * 1024;

class Reader {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.at = at;
  }
  byte() {
    return this.bytes[this.at++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = this.bytes[this.at++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  }
  skipLeb() {
    while (this.bytes[this.at++] & 0x80);
  }
}

function leb(value) {
  const out = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

/** A signed LEB128, as i32.const takes its value. */
export function sleb(value) {
  const out = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const VALUE_TYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f, 0x40]);

/**
 * Steps over one instruction's immediates (the opcode already read). Returns
 * the br_table's target count for 0x0e, else 0. Throws on opcodes this
 * rewriter does not know, so a new build fails here instead of being
 * rewritten wrongly.
 */
function skipImmediates(reader, op) {
  if (op === 0x02 || op === 0x03 || op === 0x04) {
    if (VALUE_TYPES.has(reader.bytes[reader.at])) reader.at++;
    else reader.skipLeb();
  } else if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || op === 0xd2) reader.u32();
  else if (op >= 0x20 && op <= 0x26) reader.u32();
  else if (op === 0x0e) {
    const targets = reader.u32();
    for (let i = 0; i <= targets; i++) reader.u32();
    return targets;
  } else if (op === 0x11 || op === 0x13) {
    reader.u32();
    reader.u32();
  } else if (op === 0x1c) {
    const types = reader.u32();
    reader.at += types;
  } else if (op >= 0x28 && op <= 0x3e) {
    if (reader.u32() & 0x40) reader.u32();
    reader.u32();
  } else if (op === 0x3f || op === 0x40 || op === 0xd0) reader.byte();
  else if (op === 0x41 || op === 0x42) reader.skipLeb();
  else if (op === 0x43) reader.at += 4;
  else if (op === 0x44) reader.at += 8;
  else if (op === 0xfc) {
    const sub = reader.u32();
    if (sub === 8) {
      reader.u32();
      reader.byte();
    } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) reader.u32();
    else if (sub === 10) reader.at += 2;
    else if (sub === 11) reader.byte();
    else if (sub === 12 || sub === 14) {
      reader.u32();
      reader.u32();
    } else if (sub > 7) throw new Error(`meter-wasm: unknown 0xfc opcode ${sub}`);
  } else if (
    !(op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1)
  ) {
    if (!(op >= 0x45 && op <= 0xc4)) throw new Error(`meter-wasm: unknown opcode 0x${op.toString(16)}`);
  }
  return 0;
}

/** The loops of one function's expression: where each body starts, and whether it dispatches. */
function loopsOf(bytes, start, end) {
  const reader = new Reader(bytes, start);
  const control = [];
  const loops = [];
  while (reader.at < end) {
    const op = reader.byte();
    const targets = skipImmediates(reader, op);
    if (op === 0x02 || op === 0x04) control.push(null);
    else if (op === 0x03) {
      const loop = { at: reader.at, dispatch: false };
      loops.push(loop);
      control.push(loop);
    } else if (op === 0x0b) control.pop();
    else if (op === 0x0e && targets > DISPATCH_TARGETS) {
      const inner = control.findLast((entry) => entry !== null);
      if (inner) inner.dispatch = true;
    }
  }
  return loops;
}

/** Every defined function's body: its bounds, local declarations and loops. */
function functionsOf(code, params) {
  const reader = new Reader(code);
  const functions = [];
  for (let f = reader.u32(), index = 0; index < f; index++) {
    const size = reader.u32();
    const start = reader.at;
    const end = start + size;
    const locals = new Reader(code, start);
    const groups = locals.u32();
    const declarations = locals.at;
    let declared = params[index];
    for (let g = 0; g < groups; g++) {
      declared += locals.u32();
      locals.byte();
    }
    const loops = loopsOf(code, locals.at, end);
    functions.push({ start, end, groups, declarations, expression: locals.at, declared, loops });
    reader.at = end;
  }
  return functions;
}

/**
 * The meter's words, from its address (i32 each; native-meter.ts reads and
 * writes them): turns left in the current quantum, the address of the
 * interpreter's interrupt counter to force a poll through (0: none), that
 * counter's value when a poll was forced, whether a forced poll is still to
 * come, quanta left before the hard stop, and the quantum's length.
 */
const WORD = { left: 0, target: 4, saved: 8, forced: 12, quanta: 16, quantum: 20 };

const i32const = (value) => [0x41, ...sleb(value)];
const load = [0x28, 0x02, 0x00];
const store = [0x36, 0x02, 0x00];

/** At the head of every metered loop: one turn counted; `expired` called when the quantum is used up. */
function turnCode(address, local, expired) {
  // prettier-ignore
  return [
    ...i32const(address),
    ...i32const(address), ...load,
    0x41, 0x01, 0x6b, // i32.const 1, i32.sub
    0x22, ...leb(local), // local.tee
    ...store,
    0x20, ...leb(local), 0x45, // local.get, i32.eqz
    0x04, 0x40, 0x10, ...leb(expired), 0x0b, // if call $expired end
  ];
}

/**
 * The body of $expired (one i32 local): counts a quantum off the hard stop
 * (trapping when none is left), starts the next quantum, and asks the
 * interpreter to poll at its next step (its interrupt counter set to 1, the
 * value it had saved) unless a poll is already asked for or nothing runs JS.
 */
function expiredBody(address) {
  const at = (word) => i32const(address + WORD[word]);
  // prettier-ignore
  const body = [
    0x01, 0x01, 0x7f, // one i32 local
    ...at("quanta"), ...at("quanta"), ...load,
    0x41, 0x01, 0x6b, 0x22, 0x00, // i32.const 1, i32.sub, local.tee 0
    ...store,
    0x20, 0x00, 0x45, 0x04, 0x40, 0x00, 0x0b, // if (local 0 == 0) unreachable
    ...at("left"), ...at("quantum"), ...load, ...store,
    ...at("forced"), ...load,
    0x04, 0x40, 0x0f, 0x0b, // if forced: return
    ...at("target"), ...load,
    0x22, 0x00, 0x45, 0x04, 0x40, 0x0f, 0x0b, // local.tee 0; if (target == 0) return
    ...at("saved"), 0x20, 0x00, ...load, ...store, // saved = *target
    0x20, 0x00, 0x41, 0x01, ...store, // *target = 1
    ...at("forced"), 0x41, 0x01, ...store, // forced = 1
    0x0b,
  ];
  return [...leb(body.length), ...body];
}

function readSections(bytes) {
  const reader = new Reader(bytes, 8);
  const sections = [];
  while (reader.at < bytes.length) {
    const id = reader.byte();
    const size = reader.u32();
    sections.push({ id, body: bytes.subarray(reader.at, reader.at + size) });
    reader.at += size;
  }
  return sections;
}

/** Each defined function's parameter count, the number of types and of defined functions. */
function functionTypes(sections) {
  const types = new Reader(sections.find((s) => s.id === 1).body);
  const params = [];
  for (let i = types.u32(); i > 0; i--) {
    if (types.byte() !== 0x60) throw new Error("meter-wasm: unexpected type form");
    const count = types.u32();
    types.at += count;
    params.push(count);
    const results = types.u32();
    types.at += results;
  }
  const funcs = new Reader(sections.find((s) => s.id === 3).body);
  const out = [];
  const defined = funcs.u32();
  for (let i = defined; i > 0; i--) out.push(params[funcs.u32()]);
  return { params: out, types: params.length, defined };
}

/** Functions the module imports (they come first in the function index space). */
function importedFunctions(sections) {
  const imports = sections.find((s) => s.id === 2);
  if (!imports) return 0;
  const reader = new Reader(imports.body);
  // A table's or a memory's limits: flags, minimum, and a maximum when flag 1 is set.
  const skipLimits = () => {
    const flags = reader.byte();
    reader.u32();
    if (flags & 1) reader.u32();
  };
  let count = 0;
  for (let i = reader.u32(); i > 0; i--) {
    for (let name = 0; name < 2; name++) {
      const length = reader.u32();
      reader.at += length;
    }
    const kind = reader.byte();
    if (kind === 0) {
      reader.u32();
      count++;
    } else if (kind === 1) {
      reader.byte();
      skipLimits();
    } else if (kind === 2) skipLimits();
    else if (kind === 3) reader.at += 2;
    else throw new Error(`meter-wasm: unknown import kind ${kind}`);
  }
  return count;
}

/** The initial value of global 0, emscripten's stack pointer: the C stack's top. */
function stackTop(sections) {
  const globals = new Reader(sections.find((s) => s.id === 6).body);
  if (globals.u32() === 0) throw new Error("meter-wasm: no globals");
  globals.byte();
  if (globals.byte() !== 1 || globals.byte() !== 0x41)
    throw new Error("meter-wasm: global 0 is not the stack pointer");
  // An i32.const of a non-negative value reads the same as an unsigned LEB128.
  return globals.u32();
}

/** End of the static data the active data segments write. */
function dataEnd(sections) {
  const data = sections.find((s) => s.id === 11);
  if (!data) return 0;
  const reader = new Reader(data.body);
  let end = 0;
  for (let i = reader.u32(); i > 0; i--) {
    const flags = reader.u32();
    if (flags === 1) {
      const size = reader.u32();
      reader.at += size;
      continue;
    }
    if (flags === 2) reader.u32();
    if (reader.byte() !== 0x41) throw new Error("meter-wasm: data offset is not a constant");
    const offset = reader.u32();
    if (reader.byte() !== 0x0b) throw new Error("meter-wasm: data offset is not a constant");
    const size = reader.u32();
    reader.at += size;
    end = Math.max(end, offset + size);
  }
  return end;
}

function section(id, content) {
  const out = [id, ...leb(content.length)];
  for (const byte of content) out.push(byte);
  return out;
}

/** The metered module's bytes and what was done. */
export function meterWasm(input) {
  const sections = readSections(input);
  const { params, types, defined } = functionTypes(sections);
  const expired = importedFunctions(sections) + defined;
  const top = stackTop(sections);
  const address = top - METER_DEPTH;
  if (address < dataEnd(sections) + 64 * 1024) {
    throw new Error("meter-wasm: the C stack is too small to hold the meter below its used part");
  }
  const code = sections.find((s) => s.id === 10).body;
  const functions = functionsOf(code, params);
  // The interpreter: the largest function with a dispatch loop. Only its dispatch goes unmetered;
  // other dispatch loops (the regexp matcher's) walk data and are metered like any loop.
  const interpreter = functions
    .filter((fn) => fn.loops.some((loop) => loop.dispatch))
    .reduce(
      (largest, fn) => (largest && largest.end - largest.start >= fn.end - fn.start ? largest : fn),
      null,
    );
  // None found (a module with no interpreter): every loop is metered, which is slower, never wrong.
  const bodies = [...leb(functions.length + 1)];
  let metered = 0;
  for (const fn of functions) {
    const loops = fn.loops.filter((loop) => !(fn === interpreter && loop.dispatch)).map((loop) => loop.at);
    if (loops.length === 0) {
      bodies.push(...leb(fn.end - fn.start));
      for (let i = fn.start; i < fn.end; i++) bodies.push(code[i]);
      continue;
    }
    metered += loops.length;
    // One i32 local more, declared as a group of its own after the others.
    const body = [...leb(fn.groups + 1)];
    for (let i = fn.declarations; i < fn.expression; i++) body.push(code[i]);
    body.push(0x01, 0x7f);
    const meter = turnCode(address, fn.declared, expired);
    let from = fn.expression;
    for (const at of loops) {
      for (let i = from; i < at; i++) body.push(code[i]);
      body.push(...meter);
      from = at;
    }
    for (let i = from; i < fn.end; i++) body.push(code[i]);
    bodies.push(...leb(body.length));
    for (const byte of body) bodies.push(byte);
  }
  bodies.push(...expiredBody(address));
  const out = [...input.subarray(0, 8)];
  for (const { id, body } of sections) {
    let content = body;
    // $expired: a new type () -> () and a new function after every other.
    if (id === 1) content = [...leb(types + 1), ...body.subarray(leb(types).length), 0x60, 0x00, 0x00];
    if (id === 3) content = [...leb(defined + 1), ...body.subarray(leb(defined).length), ...leb(types)];
    if (id === 10) content = bodies;
    for (const byte of section(id, content)) out.push(byte);
  }
  const name = [...new TextEncoder().encode("rayrun.meter")];
  const payload = new Uint8Array(new Uint32Array([address]).buffer);
  for (const byte of section(0, [...leb(name.length), ...name, ...payload])) out.push(byte);
  const unmetered = interpreter?.loops.filter((loop) => loop.dispatch).length ?? 0;
  return { bytes: Uint8Array.from(out), address, loops: metered, unmetered };
}

/** The bytes of the metered build (written first when missing or stale) or of the package's own. */
export function wasmBytes(build) {
  if (build === "package") return readFileSync(SOURCE_WASM);
  ensureMeteredWasm();
  return readFileSync(METERED_WASM);
}

/** Writes the metered wasm unless it is newer than both its source and this script. */
export function ensureMeteredWasm() {
  const inputs = Math.max(statSync(SOURCE_WASM).mtimeMs, statSync(fileURLToPath(import.meta.url)).mtimeMs);
  if (existsSync(METERED_WASM) && statSync(METERED_WASM).mtimeMs >= inputs) return false;
  const { bytes, address, loops, unmetered } = meterWasm(readFileSync(SOURCE_WASM));
  mkdirSync(dirname(METERED_WASM), { recursive: true });
  writeFileSync(METERED_WASM, bytes);
  console.log(
    `meter-wasm: ${loops} loops metered, ${unmetered} (the interpreter's dispatch) left to fuel, meter at ${address}: ${METERED_WASM}`,
  );
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureMeteredWasm();
