// Hostile hooks fail closed with their own code, and none of them harms the
// next call in the same isolate. Assertions are on codes and fuel, never on
// wall-clock time (the machine is noisy; the bench measures time).
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { HOSTILE_CASES, hostileSource } from "./hostile-cases";
import { beforeCode, CONTINUE, expectNextCallHealthy, runBefore, failure, failureOf } from "./helpers";

describe("hostile hooks fail closed and never harm the next call", () => {
  for (const hostile of HOSTILE_CASES) {
    const { name, code } = hostile;
    it(`${name} → ${code}`, async () => {
      const source = hostileSource(hostile);
      const report = await runBefore(source, hostile.args ?? {});
      expect(failureOf(report)).toEqual(failure(code));
      // The attack itself was reached (not only its setup) where the case says when.
      const armed = report.logs.some((entry) => entry.message === "armed");
      expect(armed).toBe(hostile.body.includes(`"armed"`));
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
