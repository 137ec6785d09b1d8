// Hostile hooks fail closed with their own code, and none of them harms the
// next call in the same isolate. Assertions are on codes and fuel, never on
// wall-clock time (the machine is noisy; the bench measures time).
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { HOSTILE_CASES } from "./hostile-cases";
import { beforeCode, CONTINUE, expectNextCallHealthy, runBefore, failure, failureOf } from "./helpers";

describe("hostile hooks fail closed and never harm the next call", () => {
  for (const { name, body, code, async } of HOSTILE_CASES) {
    it(`${name} → ${code}`, async () => {
      let source = beforeCode(`${body}\n${CONTINUE}`);
      if (async) source = source.replace("before(", "async before(");
      const report = await runBefore(source);
      expect(failureOf(report)).toEqual(failure(code));
      // A timeout means the whole budget was spent, never less.
      expect(code !== "hook_timeout" || report.fuelUsed >= LIMITS.fuelPerInvocation).toBe(true);
      await expectNextCallHealthy();
    });
  }

  it("hostile top-level code is bounded like stage code", async () => {
    const report = await runBefore(`for (;;) {}\n` + beforeCode(CONTINUE));
    expect(failureOf(report)).toEqual(failure("hook_timeout"));
    await expectNextCallHealthy();
  });
});
