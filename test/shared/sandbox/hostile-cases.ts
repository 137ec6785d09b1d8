// The hostile hooks every sandbox change is checked against: the workerd
// test suite asserts their codes, the Node bench (bench/sandbox.ts) times them.
import type { SandboxErrorCode } from "../../../shared/sandbox/types";

export interface HostileCase {
  name: string;
  /** Body of an adapter's `before` stage. */
  body: string;
  code: SandboxErrorCode;
  async?: boolean;
}

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
    name: "typed-array bomb",
    body: `const keep = []; for (;;) keep.push(new Float64Array(1 << 17));`,
    code: "hook_out_of_memory",
  },
  { name: "huge typed array", body: `new Uint8Array(1e9);`, code: "hook_timeout" },
  {
    name: "object bomb",
    body: `const keep = []; for (;;) keep.push(new Array(1e4).fill({ a: 1 }));`,
    code: "hook_out_of_memory",
  },
  {
    name: "small-object bomb",
    body: `const keep = []; for (;;) keep.push({ a: [1, 2, 3] });`,
    code: "hook_timeout",
  },
  {
    name: "string bomb",
    body: `const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1 << 22) + i);`,
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
];
