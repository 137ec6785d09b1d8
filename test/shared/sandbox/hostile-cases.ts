// The hostile hooks every sandbox change is checked against: the workerd
// test suite asserts their codes, the Node bench (bench/sandbox.ts) times them.
import type { Json } from "../../../shared/json";
import type { SandboxErrorCode } from "../../../shared/sandbox/types";
import { CONTINUE, moduleCode } from "./code";

export interface HostileCase {
  name: string;
  /** Body of an adapter's `before` stage. */
  body: string;
  code: SandboxErrorCode;
  async?: boolean;
  /** Top-level code of the module, run before the adapter is defined. */
  topLevel?: string;
  /** The stage's arguments (the body reads them as `args`). */
  args?: Json;
}

/** An object with 20 000 keys (about 300 KB of JSON), as hostile arguments. */
const WIDE_OBJECT: Json = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));

/** Two equal strings of 2^20 characters, each built by doubling (so each is a rope). */
const ROPES = `let a = "ab"; for (let i = 0; i < 19; i++) a += a; let b = "ab"; for (let i = 0; i < 19; i++) b += b;`;

export const HOSTILE_CASES: readonly HostileCase[] = [
  { name: "tight for(;;)", body: `for (;;) {}`, code: "hook_timeout" },
  { name: "catching the interrupt", body: `for (;;) { try { for (;;) {} } catch {} }`, code: "hook_timeout" },
  {
    name: "call-heavy loop",
    body: `const f = (x) => x + 1; let n = 0; for (;;) n = f(n);`,
    code: "hook_timeout",
  },
  {
    name: "throw/catch loop",
    body: `for (;;) { try { throw new Error("x"); } catch {} }`,
    code: "hook_timeout",
  },
  {
    name: "retry after stack overflow",
    body: `const f = () => { try { f(); } catch { f(); } }; f();`,
    code: "hook_timeout",
  },
  { name: "error loop", body: `for (;;) { try { null.x; } catch {} }`, code: "hook_timeout" },
  {
    name: "error loop deep in recursion",
    body: `const f = (n) => { if (n > 0) return f(n - 1); for (;;) { try { null.x; } catch {} } }; f(250);`,
    code: "hook_timeout",
  },
  { name: "repeat+toUpperCase loop", body: `for (;;) "x".repeat(1e6).toUpperCase();`, code: "hook_timeout" },
  {
    name: "big join loop",
    body: `const a = new Array(1e5).fill("abc"); for (;;) a.join(",");`,
    code: "hook_timeout",
  },
  {
    name: "JSON round trips",
    body: `const o = { s: "x".repeat(1e5), a: new Array(1e4).fill(1) }; for (;;) JSON.parse(JSON.stringify(o));`,
    code: "hook_timeout",
  },
  { name: "s += s", body: `let s = "ab"; for (;;) s += s;`, code: "hook_threw" },
  {
    name: "spread of a huge array",
    body: `const a = new Array(1e5).fill(0); for (;;) [...a];`,
    code: "hook_timeout",
  },
  {
    name: "spread of a huge string",
    body: `const s = "x".repeat(1e6); for (;;) [...s];`,
    code: "hook_timeout",
  },
  { name: "Array.from({length: 1e9})", body: `Array.from({ length: 1e9 });`, code: "hook_timeout" },
  { name: "new Array(1e9).forEach", body: `new Array(1e9).forEach(() => {});`, code: "hook_timeout" },
  { name: "new Array(1e9).fill", body: `new Array(1e9).fill(0);`, code: "hook_timeout" },
  {
    name: "naive search blow-up",
    body: `"a".repeat(1e5).indexOf("a".repeat(5e4) + "b");`,
    code: "hook_timeout",
  },
  {
    name: "Object.keys of a big object in a loop",
    body: `const o = {}; for (let i = 0; i < 5e4; i++) o["k" + i] = i; for (;;) Object.keys(o);`,
    code: "hook_timeout",
  },
  {
    name: "apply with 60k arguments",
    body: `const a = new Array(6e4).fill(1); for (;;) Math.max.apply(null, a);`,
    code: "hook_timeout",
  },
  {
    name: "sort of a big array in a loop",
    body: `const a = Array.from({ length: 1e5 }, (_, i) => (i * 7919) % 1e5); for (;;) a.slice().sort();`,
    code: "hook_timeout",
  },
  {
    name: "infinite generator spread",
    body: `function* g() { for (;;) yield 1; } [...g()];`,
    code: "hook_timeout",
  },
  {
    name: "Proxy trap loop",
    body: `const p = new Proxy({}, { get: () => { for (;;) {} } }); p.x;`,
    code: "hook_timeout",
  },
  {
    name: "catastrophic regex backtracking",
    body: `/(a+)+$/.test("a".repeat(30) + "b");`,
    code: "hook_timeout",
  },
  {
    name: "regex exec loop on a long string",
    body: `const s = "x".repeat(9999); const r = /y/; for (;;) r.exec(s);`,
    code: "hook_timeout",
  },
  {
    name: "regexp split loop on a long string",
    body: `const s = "a ".repeat(5e4); for (;;) s.split(/ +/);`,
    code: "hook_timeout",
  },
  {
    // Every step pays for the heap held: the bomb runs out of fuel before memory.
    name: "typed-array bomb",
    body: `const keep = []; for (;;) keep.push(new Float64Array(1 << 17));`,
    code: "hook_timeout",
  },
  { name: "huge typed array", body: `new Uint8Array(1e9);`, code: "hook_timeout" },
  {
    // Every step pays for the heap held, so building a heap step by step runs out of fuel first.
    name: "object bomb",
    body: `const keep = []; for (;;) keep.push(new Array(1e4).fill({ a: 1 }));`,
    code: "hook_timeout",
  },
  {
    name: "small-object bomb",
    body: `const keep = []; for (;;) keep.push({ a: [1, 2, 3] });`,
    code: "hook_timeout",
  },
  {
    name: "string bomb",
    body: `const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1 << 22) + i);`,
    code: "hook_timeout",
  },
  {
    // One step takes all the memory there is: nothing to price before it fails.
    name: "one allocation over the memory cap",
    body: `const keep = new Float64Array(1 << 22); const more = new Float64Array(1 << 22);`,
    code: "hook_out_of_memory",
  },
  {
    name: "Map bomb",
    body: `const m = new Map(); for (let i = 0; ; i++) m.set(i, "v" + i);`,
    code: "hook_timeout",
  },
  { name: "deep recursion", body: `const f = (n) => f(n + 1) + 1; f(0);`, code: "hook_stack_overflow" },
  {
    name: "huge return value",
    body: `return { action: "continue", arguments: { s: "x".repeat(2e6) } };`,
    code: "hook_output_too_large",
  },
  {
    name: "wide return value",
    body: `return { action: "continue", arguments: { a: new Array(2e5).fill(0) } };`,
    code: "hook_output_too_large",
  },
  { name: "log flood", body: `for (;;) context.log.info("flood");`, code: "hook_log_limit" },
  { name: "never-settling promise", body: `return new Promise(() => {});`, code: "hook_invalid_return" },
  {
    name: "endless microtask chain",
    body: `const loop = () => Promise.resolve().then(loop); loop(); return new Promise(() => {});`,
    code: "hook_timeout",
  },
  { name: "await in an endless loop", body: `for (;;) await null;`, code: "hook_timeout", async: true },
  // Operators and syntax whose one step walks a whole string or object: no
  // built-in is called, so only the price of a step (the heap held) bounds
  // them. Large data comes as arguments where it can, as a caller would pick
  // them; each logs "armed" when its loop starts, so the test knows the
  // attack itself was stopped, not the setup.
  {
    name: "for…in over 20k keys of the arguments, breaking at once",
    body: `const o = args.o; context.log.info("armed"); for (;;) { for (const k in o) break; }`,
    args: { o: WIDE_OBJECT },
    code: "hook_timeout",
  },
  {
    name: "object spread of 20k keys of the arguments",
    body: `const o = args.o; context.log.info("armed"); let t; for (;;) t = { ...o };`,
    args: { o: WIDE_OBJECT },
    code: "hook_timeout",
  },
  {
    name: "object rest of 20k keys of the arguments",
    body: `const o = args.o; context.log.info("armed"); let t; for (;;) ({ k0: t, ...t } = o);`,
    args: { o: WIDE_OBJECT },
    code: "hook_timeout",
  },
  {
    name: "Object.assign-free copy loop over 20k keys (for…in with a body)",
    body: `const o = args.o; context.log.info("armed"); for (;;) { const t = {}; for (const k in o) t[k] = o[k]; }`,
    args: { o: WIDE_OBJECT },
    code: "hook_timeout",
  },
  {
    name: "comparing two 4 MB strings",
    body: `const a = "x".repeat(4e6) + "a"; const b = "x".repeat(4e6) + "b"; context.log.info("armed"); let n = 0; for (;;) if (a === b) n++;`,
    code: "hook_timeout",
  },
  {
    name: "ordering two 1 MB two-byte strings",
    body: `const a = "\\u0101".repeat(1e6) + "a"; const b = "\\u0101".repeat(1e6) + "b"; context.log.info("armed"); let n = 0; for (;;) if (a < b) n++;`,
    code: "hook_timeout",
  },
  {
    name: "switch on a 4 MB string",
    body: `const s = "x".repeat(4e6) + "a"; const c = "x".repeat(4e6) + "b"; context.log.info("armed"); let n = 0; for (;;) switch (s) { case c: n++; }`,
    code: "hook_timeout",
  },
  {
    name: "number from a 4 MB string of spaces",
    body: `const s = " ".repeat(4e6) + "1"; context.log.info("armed"); let t; for (;;) t = +s;`,
    code: "hook_timeout",
  },
  {
    name: "loose equality of a 4 MB string with a number",
    body: `const s = " ".repeat(4e6) + "1"; context.log.info("armed"); let n = 0; for (;;) if (s == 1) n++;`,
    code: "hook_timeout",
  },
  {
    name: "Map lookup by a 4 MB key",
    body: `const k = "x".repeat(4e6); const m = new Map(); context.log.info("armed"); let t; for (;;) t = m.get(k + "");`,
    code: "hook_timeout",
  },
  {
    name: "property lookup by a fresh 1 MB key",
    body: `const k = "x".repeat(1e6); const o = {}; context.log.info("armed"); let t; for (let i = 0; ; i++) t = o[k + (i & 1)];`,
    code: "hook_timeout",
  },
  {
    name: "template literal of a 4 MB string",
    body: `const s = "x".repeat(4e6); context.log.info("armed"); let t; for (;;) t = \`\${s}!\`.length;`,
    code: "hook_timeout",
  },
  {
    name: "instanceof through a 1k-deep prototype chain",
    body: `let p = {}; for (let i = 0; i < 1e3; i++) p = Object.create(p); context.log.info("armed"); let t; for (;;) t = p instanceof Array;`,
    code: "hook_timeout",
  },
  {
    name: "a missing property through a 1k-deep prototype chain",
    body: `let p = {}; for (let i = 0; i < 1e3; i++) p = Object.create(p); context.log.info("armed"); let t; for (;;) t = p.missing;`,
    code: "hook_timeout",
  },
  {
    name: "a long straight-line loop body",
    body: `let x = 0; const o = { a: 1 }; context.log.info("armed"); for (;;) { ${"o[x & 1] |= x++;".repeat(4000)} }`,
    code: "hook_timeout",
  },
  {
    // Operators grow the heap without a metered call: the steps until the next poll are priced as before the growth.
    name: "doubling a string to 4 MB, then converting it in a loop",
    body: `let s = " "; for (let i = 0; i < 22; i++) s += s; s += "1"; context.log.info("armed"); let t; for (;;) t = +s;`,
    code: "hook_timeout",
  },
  {
    name: "comparing two 4 MB strings in a top level",
    body: `return null;`,
    code: "hook_timeout",
    topLevel: `const a = "x".repeat(4e6) + "a"; const b = "x".repeat(4e6) + "b"; let n = 0; for (;;) if (a === b) n++;`,
  },
  {
    name: "two 4 MB strings a top level holds, compared by the call",
    body: `context.log.info("armed"); let n = 0; for (;;) if (HELD_A === HELD_B) n++;`,
    code: "hook_timeout",
    topLevel: `globalThis.HELD_A = "x".repeat(4e6) + "a"; globalThis.HELD_B = "x".repeat(4e6) + "b";`,
  },
  // Strings built by `s += s` are ropes: a few small nodes on the heap however long the
  // string, so the heap price does not see their length; the native meter does.
  {
    name: "comparing two 1M-character ropes in a loop",
    body: `${ROPES} context.log.info("armed"); let n = 0; for (;;) if (a === b) n++;`,
    code: "hook_timeout",
  },
  {
    name: "ordering two 1M-character ropes in a loop",
    body: `${ROPES} b += "c"; context.log.info("armed"); let n = 0; for (;;) if (a < b) n++;`,
    code: "hook_timeout",
  },
  {
    name: "a 1M-character rope as a property key in a loop",
    body: `${ROPES} const o = {}; context.log.info("armed"); for (;;) o[a] = 1;`,
    code: "hook_timeout",
  },
  {
    name: "the last character of a 1M-character rope in a loop",
    body: `${ROPES} context.log.info("armed"); let t = 0; for (;;) t += a.charCodeAt(a.length - 1);`,
    code: "hook_timeout",
  },
  {
    name: "two 1M-character ropes a top level holds, compared by the call",
    body: `context.log.info("armed"); let n = 0; for (;;) if (HELD_A === HELD_B) n++;`,
    code: "hook_timeout",
    topLevel: `${ROPES} globalThis.HELD_A = a; globalThis.HELD_B = b;`,
  },
];

/** The compiled module of a hostile case: its top level (if any), then an adapter whose `before` runs the body. */
export function hostileSource(hostile: HostileCase): string {
  const stage = `${hostile.async ? "async " : ""}before({ arguments: args, context }) {\n${hostile.body}\n${CONTINUE}\n}`;
  return moduleCode(
    `${hostile.topLevel ?? ""}\nreturn { default: defineToolAdapter({ apiVersion: "rayrun.hooks/v1", ${stage} }) };`,
  );
}
