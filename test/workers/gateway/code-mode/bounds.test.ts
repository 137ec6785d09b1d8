// Code Mode's bounds, each a named limit: at the limit an execution passes,
// one over it ends with the bound's code as a tool error result (never a
// JSON-RPC error or a 5xx), whatever the code does after catching it. And a
// hostile execution fails closed while the next one works.
import { afterEach, describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { codeModeFaults } from "../../../../workers/gateway/code-mode/execute";
import { setup } from "../harness";
import { connectCode, failure, run } from "./harness";

afterEach(() => {
  delete codeModeFaults.wallTimeMs;
});

/** Code that makes `n` echo calls one after another and returns how many it made. */
const sequential = (n: number) => `
  let made = 0;
  for (let i = 0; i < ${n}; i++) { await tools.echo({ text: "n" + i }); made++; }
  return made;`;

/** Code returning a string of `bytes` bytes of JSON (n characters are n + 2 bytes with the quotes). */
const returning = (bytes: number) => `return "x".repeat(${bytes - 2});`;

/** Code that starts `n` echo calls at once and awaits them all. */
const together = (n: number) => `
  const all = await Promise.all(Array.from({ length: ${n} }, (_, i) => tools.echo({ text: "p" + i })));
  return all.length;`;

describe("Code Mode bounds", () => {
  it("codeModeCallsPerExecution: at the limit passes, one over ends the execution even when the code catches it", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const max = LIMITS.codeModeCallsPerExecution;
    expect((await run(client, sequential(max))).result).toBe(max);
    expect(await g.upstream.calls()).toHaveLength(max);
    const over = await failure(
      client,
      `${sequential(max)}
       ;`.replace(
        "return made;",
        `try { await tools.echo({ text: "one more" }); } catch (e) {} return made;`,
      ),
    );
    expect(over.code).toBe("code_mode_call_limit");
    // The call over the limit never started.
    expect(await g.upstream.calls()).toHaveLength(2 * max);
  });

  it("codeModeConcurrentCalls: that many calls in flight pass (Promise.all), one more ends the execution", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const max = LIMITS.codeModeConcurrentCalls;
    expect((await run(client, together(max))).result).toBe(max);
    expect((await failure(client, together(max + 1))).code).toBe("code_mode_concurrency_limit");
    // The same number of calls one after another is within the bound.
    expect((await run(client, sequential(max + 1))).result).toBe(max + 1);
  });

  it("codeModeWallTimeMs: calls answered within it pass, a call still awaited when it is up ends the execution", async () => {
    const g = await setup();
    const client = await connectCode(g);
    await g.upstream.delay(400);
    codeModeFaults.wallTimeMs = 5_000;
    expect((await run(client, sequential(1))).result).toBe(1);
    codeModeFaults.wallTimeMs = 150;
    const started = Date.now();
    const over = await failure(
      client,
      `try { await tools.echo({ text: "slow" }); } catch (e) {} return "caught";`,
    );
    expect(over.code).toBe("code_mode_time_limit");
    expect(Date.now() - started).toBeLessThan(400);
    await g.upstream.delay(0);
    delete codeModeFaults.wallTimeMs;
    expect((await run(client, sequential(1))).result).toBe(1);
  });

  it("codeModeCodeBytes: code of that many bytes runs, one byte more is refused before it runs", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const head = "return 1;\n//";
    const code = (bytes: number) => head + "x".repeat(bytes - head.length);
    expect((await run(client, code(LIMITS.codeModeCodeBytes))).result).toBe(1);
    expect((await failure(client, code(LIMITS.codeModeCodeBytes + 1))).code).toBe("code_mode_code_too_large");
  });

  it("codeModeOutputBytes: a result of that many bytes of JSON is returned, one byte more is refused", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(client, returning(LIMITS.codeModeOutputBytes));
    expect(JSON.stringify(result)).toHaveLength(LIMITS.codeModeOutputBytes);
    expect((await failure(client, returning(LIMITS.codeModeOutputBytes + 1))).code).toBe(
      "code_mode_output_too_large",
    );
    // Past the sandbox's own output bound too, the code is the same.
    expect((await failure(client, returning(LIMITS.outputBytes + 1))).code).toBe(
      "code_mode_output_too_large",
    );
  });
});

describe("hostile executions fail closed, and the next one works", () => {
  const cases = [
    { name: "an endless loop", code: `for (;;) {}`, reason: "hook_timeout" },
    {
      name: "a memory bomb",
      code: `const keep = new Float64Array(1 << 22); const more = new Float64Array(1 << 22); return keep.length + more.length;`,
      reason: "hook_out_of_memory",
    },
    {
      name: "an await that never settles",
      code: `await new Promise(() => {}); return 1;`,
      reason: "hook_invalid_return",
    },
    {
      name: "a syntax error in TypeScript",
      code: `const n: number = ; return n;`,
      reason: "hook_threw",
    },
  ];
  for (const hostile of cases) {
    it(`${hostile.name} fails with ${hostile.reason}`, async () => {
      const g = await setup();
      const client = await connectCode(g);
      expect(await failure(client, hostile.code)).toMatchObject({
        code: "code_mode_failed",
        reason: hostile.reason,
      });
      expect(
        (await run(client, `return (await tools.echo({ text: "after" })).content[0].text;`)).result,
      ).toBe("after");
    });
  }

  it("code that escapes its function body only breaks its own module", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const escaped = await failure(client, `} }; for (;;) {} ({ main: async function () {`);
    expect(escaped.code).toBe("code_mode_failed");
    expect((await run(client, `return typeof fetch + typeof rayrun;`)).result).toBe("undefinedundefined");
  });
});
