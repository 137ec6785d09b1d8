// Boundary tests for every per-invocation limit: exactly at the limit passes,
// one over fails with the limit's own code.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { FUEL } from "../../../shared/sandbox";
import {
  beforeCode,
  CONTINUE,
  expectNextCallHealthy,
  okValue,
  runBefore,
  failure,
  failureOf,
} from "./helpers";

describe("log limits", () => {
  it(`${LIMITS.logEntries} log entries pass, one more fails with hook_log_limit`, async () => {
    const atLimit = await runBefore(
      beforeCode(`for (let i = 0; i < ${LIMITS.logEntries}; i++) context.log.debug("n" + i); ${CONTINUE}`),
    );
    expect(okValue(atLimit)).toBeDefined();
    expect(atLimit.logs).toHaveLength(LIMITS.logEntries);
    const over = await runBefore(
      beforeCode(`for (let i = 0; i <= ${LIMITS.logEntries}; i++) context.log.debug("n" + i); ${CONTINUE}`),
    );
    expect(failureOf(over)).toEqual(failure("hook_log_limit", /log entries/));
    expect(over.logs).toHaveLength(LIMITS.logEntries);
  });

  it("entries written before the hook failed are reported in order, exactly as written", async () => {
    const written = [
      { level: "debug", message: 'a "quoted"\nline' },
      { level: "warn", message: "null data", data: null },
      { level: "error", message: "nested", data: { x: [1, { y: "é😀" }], z: false } },
    ];
    const logging = `context.log.debug('a "quoted"\\nline'); context.log.warn("null data", null);
      context.log.error("nested", { x: [1, { y: "é😀" }], z: false });`;
    const threw = await runBefore(beforeCode(`${logging} throw new Error("boom");`));
    expect(failureOf(threw)).toEqual(failure("hook_threw", /boom/));
    expect(threw.logs).toEqual(written);
    const spun = await runBefore(beforeCode(`${logging} for (;;) {}`));
    expect(failureOf(spun)).toEqual(failure("hook_timeout"));
    expect(spun.logs).toEqual(written);
  });

  it("catching the log-limit error does not hide the violation", async () => {
    const report = await runBefore(
      beforeCode(`try { for (;;) context.log.warn("flood"); } catch {} ${CONTINUE}`),
    );
    expect(failureOf(report)).toEqual(failure("hook_log_limit"));
  });

  it(`a message of ${LIMITS.logMessageChars} characters passes, one more fails`, async () => {
    expect(
      okValue(
        await runBefore(beforeCode(`context.log.info("m".repeat(${LIMITS.logMessageChars})); ${CONTINUE}`)),
      ),
    ).toBeDefined();
    const over = await runBefore(
      beforeCode(`context.log.info("m".repeat(${LIMITS.logMessageChars + 1})); ${CONTINUE}`),
    );
    expect(failureOf(over)).toEqual(failure("hook_log_limit", /log message longer/));
  });

  it(`data of ${LIMITS.logDataBytes} bytes of JSON passes, one more fails`, async () => {
    const fill = LIMITS.logDataBytes - JSON.stringify({ s: "" }).length;
    const atLimit = await runBefore(
      beforeCode(`context.log.info("d", { s: "é".repeat(${fill / 2}) }); ${CONTINUE}`),
    );
    expect(okValue(atLimit)).toBeDefined();
    expect(new TextEncoder().encode(JSON.stringify(atLimit.logs[0]?.data)).length).toBe(LIMITS.logDataBytes);
    const over = await runBefore(
      beforeCode(`context.log.info("d", { s: "é".repeat(${fill / 2}) + "x" }); ${CONTINUE}`),
    );
    expect(failureOf(over)).toEqual(failure("hook_log_limit", /log data larger/));
  });

  it("log messages must be strings and data must be JSON", async () => {
    expect(failureOf(await runBefore(beforeCode(`context.log.info(42); ${CONTINUE}`)))).toEqual(
      failure("hook_threw", /message must be a string/),
    );
    expect(failureOf(await runBefore(beforeCode(`context.log.info("x", { f() {} }); ${CONTINUE}`)))).toEqual(
      failure("hook_threw", /log data\.f is a function/),
    );
  });
});

describe("output limit", () => {
  const fill = LIMITS.outputBytes - JSON.stringify({ action: "continue", arguments: { s: "" } }).length;
  it(`a return value of ${LIMITS.outputBytes} bytes of JSON passes, one more fails`, async () => {
    const atLimit = await runBefore(
      beforeCode(`return { action: "continue", arguments: { s: "x".repeat(${fill}) } };`),
    );
    expect(new TextEncoder().encode(JSON.stringify(okValue(atLimit))).length).toBe(LIMITS.outputBytes);
    const over = await runBefore(
      beforeCode(`return { action: "continue", arguments: { s: "x".repeat(${fill + 1}) } };`),
    );
    expect(failureOf(over)).toEqual(failure("hook_output_too_large"));
  });

  it("multi-byte characters count as UTF-8 bytes", async () => {
    const over = await runBefore(
      beforeCode(`return { action: "continue", arguments: { s: "é".repeat(${fill / 2}) + "x" } };`),
    );
    expect(failureOf(over)).toEqual(failure("hook_output_too_large"));
  });
});

const loop = (n: number) => beforeCode(`let x = 0; for (let i = 0; i < ${n}; i++) x++; ${CONTINUE}`);
const nest = (levels: number) =>
  beforeCode(
    `let v = 1; for (let i = 0; i < ${levels}; i++) v = [v]; return { action: "continue", arguments: { v } };`,
  );

describe("fuel limit", () => {
  it("a loop costing just under the budget passes; just over fails with hook_timeout", async () => {
    const small = await runBefore(loop(10_000));
    const large = await runBefore(loop(20_000));
    const perIteration = (large.fuelUsed - small.fuelUsed) / 10_000;
    const fixed = small.fuelUsed - 10_000 * perIteration;
    // Lease chunks and poll granularity make the edge fuzzy by at most this much.
    const slack = FUEL.leaseChunk + FUEL.pollInterval;
    const under = Math.floor((LIMITS.fuelPerInvocation - fixed - slack) / perIteration);
    const over = Math.ceil((LIMITS.fuelPerInvocation - fixed + slack) / perIteration);
    const passed = await runBefore(loop(under));
    expect(okValue(passed)).toBeDefined();
    expect(passed.fuelUsed).toBeLessThan(LIMITS.fuelPerInvocation);
    expect(passed.fuelUsed).toBeGreaterThan(LIMITS.fuelPerInvocation - 2 * slack);
    const failed = await runBefore(loop(over));
    expect(failureOf(failed)).toEqual(failure("hook_timeout", /fuel budget/));
    expect(failed.fuelUsed).toBeGreaterThanOrEqual(LIMITS.fuelPerInvocation);
    await expectNextCallHealthy();
  });

  it("fuel is charged even if the hook catches the out-of-fuel error", async () => {
    const report = await runBefore(beforeCode(`try { for (;;) "x".repeat(1000); } catch {} ${CONTINUE}`));
    expect(failureOf(report)).toEqual(failure("hook_timeout"));
    await expectNextCallHealthy();
  });
});

describe("stack limit", () => {
  it("moderate recursion passes; unbounded recursion fails with hook_stack_overflow", async () => {
    expect(
      okValue(
        await runBefore(beforeCode(`const f = (n) => (n === 0 ? 0 : 1 + f(n - 1)); f(200); ${CONTINUE}`)),
      ),
    ).toBeDefined();
    const report = await runBefore(beforeCode(`const f = (n) => 1 + f(n + 1); f(0); ${CONTINUE}`));
    expect(failureOf(report)).toEqual(failure("hook_stack_overflow"));
    await expectNextCallHealthy();
  });

  it("a caught stack overflow is the hook's business", async () => {
    const report = await runBefore(beforeCode(`const f = () => f(); try { f(); } catch {} ${CONTINUE}`));
    expect(okValue(report)).toBeDefined();
  });

  // QuickJS leaks objects when JSON.parse overflows the stack; freeing that
  // runtime then aborts the wasm instance, which is replaced for the next call.
  it("deeply nested JSON.parse input fails with hook_stack_overflow", async () => {
    const report = await runBefore(beforeCode(`JSON.parse("[".repeat(200000)); ${CONTINUE}`));
    expect(failureOf(report)).toEqual(failure("hook_stack_overflow"));
    await expectNextCallHealthy();
  });

  it("return values nest at most 64 levels", async () => {
    expect(okValue(await runBefore(nest(62)))).toBeDefined();
    expect(failureOf(await runBefore(nest(63)))).toEqual(
      failure("hook_invalid_return", /nests deeper than 64/),
    );
  });
});

describe("memory limit", () => {
  it("a few megabytes are fine; exhausting the sandbox fails with hook_out_of_memory", async () => {
    expect(
      okValue(
        await runBefore(beforeCode(`const a = new Uint8Array(4 * 1024 * 1024); a[1] = 1; ${CONTINUE}`)),
      ),
    ).toBeDefined();
    const report = await runBefore(
      beforeCode(`const keep = []; for (;;) keep.push(new Uint8Array(1 << 24)); ${CONTINUE}`),
    );
    expect(failureOf(report)).toEqual(failure("hook_out_of_memory"));
    await expectNextCallHealthy();
  });

  it("an allocation larger than the sandbox fails with hook_out_of_memory", async () => {
    const report = await runBefore(beforeCode(`new ArrayBuffer(${LIMITS.sandboxMemoryBytes}); ${CONTINUE}`));
    expect(failureOf(report)).toEqual(failure("hook_out_of_memory"));
    await expectNextCallHealthy();
  });
});
