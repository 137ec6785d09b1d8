// `execute` reads the code as TypeScript: its types are erased, line for
// line, before the sandbox compiles it; code whose TypeScript cannot be erased
// (a syntax error, a namespace, ambiguity past the parser's budget) fails
// closed with a message that says why and where, and plain JavaScript runs
// exactly as written.
import { describe, expect, it } from "vitest";
import { SEED_ADAPTER } from "../adapters";
import { deploy, setup } from "../harness";
import { connectCode, failure, run } from "./harness";

/** The call every test makes after a failure: the next execution works. */
const ECHO_AFTER = `return (await tools.echo({ text: "after" })).content[0].text;`;

describe("TypeScript in execute", () => {
  it("runs typed code (interfaces, aliases, generics, `as`, `satisfies`, `!`, typed arrows) that chains two tools", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `interface Note {
        title: string;
      }
      type Found = { items: Note[] };
      type Echoed = { content: Array<{ type: "text"; text: string }> };
      const first = <T,>(xs: readonly T[]): T | undefined => xs[0];
      const shout = (text: string, mark?: string): string => text.toUpperCase() + (mark ?? "");
      const found = (await tools.search_release_notes({ query: "v2" })) as Found;
      const title: string = first<Note>(found.items)!.title;
      const echoed = (await tools.echo({ text: shout(title, "!") } satisfies { text: string })) as unknown as Echoed;
      return { count: found.items.length as number, text: echoed.content[0]!.text };`,
    );
    expect(result).toEqual({ count: 2, text: "RELEASE NOTES MATCHING V2!" });
    expect((await g.upstream.calls()).map((c) => [c.tool, c.arguments])).toEqual([
      ["search_release_notes", { q: "v2" }],
      ["echo", { text: "RELEASE NOTES MATCHING V2!" }],
    ]);
  });

  it("keeps every line where the model wrote it", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `interface Spread {
        over: number;
        lines: string;
      }
      try { null!.x; } catch (error) { return String((error as Error).stack); }`,
    );
    // The body starts on the module's third line: its line 5 (after the four
    // lines of the erased interface) is the module's line 7.
    expect(String(result).split("\n")[0]).toMatch(/^\s*at main \(hook\.js:7:\d+\)$/);
  });

  it("compiles enums and parameter properties, TypeScript's two features that are code", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `enum Level { Low = 1, High }
      const enum Mode { Fast = "fast" }
      class Box { constructor(private readonly value: number, public label: string) {} get double(): number { return this.value * 2; } }
      const box = new Box(21, "b");
      return [Level.Low, Level.High, Level[2], Mode.Fast, box.double, box.label];`,
    );
    expect(result).toEqual([1, 2, "High", "fast", 42, "b"]);
  });

  it("a syntax error fails with its line and column in the code, and the next execution works", async () => {
    const g = await setup();
    const client = await connectCode(g);
    expect(await failure(client, `const a: number = 1;\n\nconst b: number = ;\nreturn a + b;`)).toEqual({
      code: "code_mode_failed",
      reason: "hook_threw",
      message: "SyntaxError: Unexpected token at line 3, column 19 of the code",
    });
    expect(await failure(client, `const a = [1, 2;\nreturn a;`)).toMatchObject({
      code: "code_mode_failed",
      reason: "hook_threw",
      message: expect.stringMatching(
        /^SyntaxError: Unexpected token, expected "[,\]]" at line 1, column \d+ of the code$/,
      ),
    });
    expect(await failure(client, `const items = [1, 2].map((n: number) => {\n  return n;\n`)).toMatchObject({
      reason: "hook_threw",
      message: expect.stringMatching(
        /^SyntaxError: Unexpected token.* at the end of the code \(is a bracket or a string left open\?\)$/,
      ),
    });
    expect((await run(client, ECHO_AFTER)).result).toBe("after");
  });

  it("a namespace fails closed: nothing in the code runs, and the message says what to use instead", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const refused = await failure(
      client,
      `await tools.echo({ text: "before" });\nnamespace Limits { export const max: number = 3; }\nreturn Limits.max;`,
    );
    expect(refused).toEqual({
      code: "code_mode_failed",
      reason: "hook_threw",
      message:
        "SyntaxError: A namespace or module declaration is not allowed in the code (TypeScript allows them only at the top level of a module); use an object instead.",
    });
    expect(await g.upstream.calls()).toEqual([]);
    // The same words in a string are not a declaration.
    expect((await run(client, `return "namespace Limits { }" as string;`)).result).toBe(
      "namespace Limits { }",
    );
  });

  it("code too ambiguous to parse within the budget fails closed at once, and the next execution works", async () => {
    const g = await setup();
    const client = await connectCode(g);
    // Each nested `a ? (b): c => (` doubles sucrase's backtracking: unguarded, 20 levels took 17 s in Node.
    const started = Date.now();
    expect(await failure(client, "a ? (b): c => (".repeat(24))).toMatchObject({
      code: "code_mode_failed",
      reason: "hook_threw",
      message: expect.stringMatching(
        /^SyntaxError: The code is too ambiguous to read as TypeScript within its budget/,
      ),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await run(client, ECHO_AFTER)).result).toBe("after");
  });

  it("plain JavaScript runs as written: nothing is downlevelled", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `class Counter { #count = 0; static made = 0; bump() { return ++this.#count; } }
      const counter = new Counter();
      counter.bump();
      const nested = { a: { b: 2 } };
      const text = (await tools.echo({ text: \`n=\${counter.bump()}\` })).content[0].text;
      return [text, nested?.a?.b, null ?? "fallback", /a<b>c/.test("a<b>c"), 1 < 2 && 3 > 2, Counter.made];`,
    );
    expect(result).toEqual(["n=2", 2, "fallback", true, true, 0]);
  });
});
