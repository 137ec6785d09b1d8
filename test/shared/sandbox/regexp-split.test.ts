// Splitting by a regexp inside hooks (shared/sandbox/prelude/regexp-split.js):
// the same parts as the language gives, fuel in proportion to the text, and
// the specified algorithm, with every observable step, once hook code has
// changed anything it observes.
import { describe, expect, it } from "vitest";
import { beforeCode, expectNextCallHealthy, failure, failureOf, okValue, runBefore } from "./helpers";

/** [source, flags, input, limit or null] */
type SplitCase = [string, string, string, number | null];

const CASES: SplitCase[] = [
  ["\\s+", "", "The Workers  release notes of D1", null],
  ["\\s+", "", "  leading and trailing  ", null],
  [",\\s*", "", "a, b,c,   d", null],
  ["(-)", "", "a-b-c", null],
  ["(a)|(b)", "", "xaybz", null],
  ["(?:)", "", "abc", null],
  ["x*", "", "axbxxc", null],
  ["", "", "", null],
  ["x", "", "", null],
  ["(?:)", "", "", null],
  ["(?:)", "u", "a\u{1F600}b", null],
  ["(?:)", "", "a\u{1F600}b", null],
  ["(?:)", "v", "\u{1F600}\u{1F601}", null],
  ["\\b", "", "one two", null],
  ["(?<=a)", "", "banana", null],
  ["a", "y", "banana", null],
  ["a", "g", "banana", null],
  ["A", "i", "banana", null],
  ["^", "m", "one\ntwo\nthree", null],
  ["^b", "", "bab", null],
  [".", "s", "a\nb", null],
  ["(\\d)(\\d)?", "d", "a1b23c", null],
  ["\\s+", "", "a b c d", 0],
  ["\\s+", "", "a b c d", 2],
  ["(-)", "", "a-b-c", 2],
  ["(-)", "", "a-b-c", 3],
  ["\\s+", "", "a b c d", -1],
  ["\\s+", "", "a b c d", 4294967297],
  ["\\s+", "", "a b c d", 0.5],
  ["\\s+", "", "a b c d", 2.9],
  ["$", "", "abc", null],
  ["c$", "", "abc", null],
  ["\u{1F600}", "u", "a\u{1F600}b\u{1F600}", null],
];

/**
 * What the test's own engine (V8) gives. Parts travel as their UTF-16 code
 * units (splitting between surrogates makes strings JSON cannot carry), and
 * undefined captures as null.
 */
const expected = (cases: SplitCase[]) =>
  cases.map(([source, flags, input, limit]) =>
    (limit === null
      ? input.split(new RegExp(source, flags))
      : input.split(new RegExp(source, flags), limit)
    ).map((part) =>
      part === undefined ? null : Array.from({ length: part.length }, (_, i) => part.charCodeAt(i)),
    ),
  );

const SPLIT_ALL = `const parts = args.cases.map(([source, flags, input, limit]) =>
  (limit === null ? input.split(new RegExp(source, flags)) : input.split(new RegExp(source, flags), limit))
    .map((part) => (part === undefined ? null : Array.from({ length: part.length }, (_, i) => part.charCodeAt(i)))));`;

/** Splits `words` words of text by /\\s+/ and returns the number of parts. */
const splitWords = (words: number) =>
  runBefore(
    beforeCode(
      `const parts = "word ".repeat(${words}).split(/\\s+/);\nreturn { action: "continue", arguments: { n: parts.length } };`,
    ),
  );

/** Runs `setup`, splits "a b" by / / (tries at indices 0, 1, 2), returns the parts and what `seen` recorded. */
const observed = async (setup: string, split = `"a b".split(re)`) => {
  const report = await runBefore(
    beforeCode(
      `const seen = [];\nconst re = / /;\n${setup}\nconst parts = ${split};\nreturn { action: "continue", arguments: { parts, seen } };`,
    ),
  );
  return okValue(report) as { action: string; arguments: { parts: string[]; seen: string[] } };
};

describe("splitting by a regexp", () => {
  it("gives the language's parts, captures and limits included", async () => {
    const report = await runBefore(
      beforeCode(`${SPLIT_ALL}\nreturn { action: "continue", arguments: { parts } };`),
      { cases: CASES },
    );
    expect(okValue(report)).toEqual({ action: "continue", arguments: { parts: expected(CASES) } });
  });

  it("gives the same parts through the engine's own algorithm once exec is replaced", async () => {
    const report = await runBefore(
      beforeCode(
        `const exec = RegExp.prototype.exec;
RegExp.prototype.exec = function (text) { return exec.call(this, text); };
${SPLIT_ALL}\nreturn { action: "continue", arguments: { parts } };`,
      ),
      { cases: CASES },
    );
    expect(okValue(report)).toEqual({ action: "continue", arguments: { parts: expected(CASES) } });
  });

  it("costs fuel in proportion to the text", async () => {
    // 8 000 characters used to exhaust a call's whole budget.
    const small = await splitWords(4_000);
    const large = await splitWords(8_000);
    expect(okValue(small)).toEqual({ action: "continue", arguments: { n: 4_001 } });
    expect(okValue(large)).toEqual({ action: "continue", arguments: { n: 8_001 } });
    const ratio = large.fuelUsed / small.fuelUsed;
    expect(ratio).toBeGreaterThan(1.8);
    expect(ratio).toBeLessThan(2.2);
  });

  it("still charges a separator's backtracking", async () => {
    const report = await runBefore(
      beforeCode(`"a".repeat(40).split(/(a|a)*b/);\nreturn { action: "continue", arguments: {} };`),
    );
    expect(failureOf(report)).toEqual(failure("hook_timeout"));
    await expectNextCallHealthy();
  });
});

describe("splitting by a regexp after hook code changed what the algorithm observes", () => {
  it("a replaced exec is called at every index the separator is tried", async () => {
    const out = await observed(
      `const exec = RegExp.prototype.exec;
RegExp.prototype.exec = function (text) { seen.push(String(this.lastIndex)); return exec.call(this, text); };`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["0", "1", "2"] });
  });

  it("an own constructor is read once for the species", async () => {
    const out = await observed(
      `Object.defineProperty(re, "constructor", { get() { seen.push("constructor"); return RegExp; } });`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["constructor"] });
  });

  it("a replaced flags getter is read once", async () => {
    const out = await observed(
      `Object.defineProperty(RegExp.prototype, "flags", { get() { seen.push("flags"); return ""; }, configurable: true });`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["flags"] });
  });

  it("a replaced flag getter is read by the flags getter", async () => {
    const out = await observed(
      `const sticky = Object.getOwnPropertyDescriptor(RegExp.prototype, "sticky").get;
Object.defineProperty(RegExp.prototype, "sticky", { get() { seen.push("sticky"); return sticky.call(this); }, configurable: true });`,
    );
    expect(out.arguments.parts).toEqual(["a", "b"]);
    expect(out.arguments.seen.length).toBeGreaterThan(0);
  });

  it("a species from a subclass builds the splitter", async () => {
    const out = await observed(
      `class Logged extends RegExp { constructor(...a) { super(...a); seen.push("built " + a[1]); } }
Object.defineProperty(RegExp, Symbol.species, { get() { return Logged; }, configurable: true });`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["built y"] });
  });

  it("a limit with valueOf is converted once", async () => {
    const out = await observed(``, `"a b c".split(re, { valueOf() { seen.push("limit"); return 2; } })`);
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["limit"] });
  });

  it("checking what changed runs no getter planted on Object.prototype", async () => {
    const out = await observed(
      `const exec = RegExp.prototype.exec;
Object.defineProperty(RegExp.prototype, "exec", { get() { return exec; }, configurable: true });
for (const field of ["value", "get", "set", "writable"])
  Object.defineProperty(Object.prototype, field, Object.assign(Object.create(null), { get() { seen.push(field); }, configurable: true }));`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: [] });
  });

  it("checking what changed asks no proxy planted further up RegExp.prototype's chain", async () => {
    // flags now comes from the proxy's target: the language's algorithm reads it (a get trap);
    // the check must only see that RegExp.prototype lost it, without asking the proxy.
    const out = await observed(
      `const base = Object.create(Object.prototype, { flags: Object.getOwnPropertyDescriptor(RegExp.prototype, "flags") });
delete RegExp.prototype.flags;
const traps = {};
for (const trap of ["getOwnPropertyDescriptor", "get", "has", "ownKeys", "getPrototypeOf"])
  traps[trap] = (...a) => { seen.push(trap + " " + String(typeof a[1] === "symbol" ? a[1].description : a[1])); return Reflect[trap](...a); };
Object.setPrototypeOf(RegExp.prototype, new Proxy(base, traps));`,
    );
    expect(out.arguments.parts).toEqual(["a", "b"]);
    expect(out.arguments.seen).toContain("get flags");
    expect(out.arguments.seen.filter((entry) => !entry.startsWith("get "))).toEqual([]);
  });

  it("a watched getter moved up the chain is seen as changed, and the language's algorithm reads it there", async () => {
    const out = await observed(
      `const flags = Object.getOwnPropertyDescriptor(RegExp.prototype, "flags");
delete RegExp.prototype.flags;
const middle = Object.create(Object.prototype, { flags: { get() { seen.push("flags"); return flags.get.call(this); }, configurable: true } });
Object.setPrototypeOf(RegExp.prototype, middle);`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: ["flags"] });
  });

  it("a watched data property turned into a setter-only accessor is seen as changed", async () => {
    const out = await observed(
      `Object.defineProperty(RegExp.prototype, "exec", { set(v) { seen.push("set"); }, configurable: true });`,
    );
    // Without a callable exec the language's algorithm uses the built-in matcher: same parts, nothing run.
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: [] });
  });

  it("index setters planted on Array.prototype do not see the parts", async () => {
    const out = await observed(
      `Object.defineProperty(Array.prototype, "0", { set(v) { seen.push("set " + v); }, configurable: true });`,
      `(() => { const p = "a b".split(re); delete Array.prototype[0]; Array.prototype.length = 0; return p; })()`,
    );
    expect(out.arguments).toEqual({ parts: ["a", "b"], seen: [] });
    await expectNextCallHealthy();
  });
});
