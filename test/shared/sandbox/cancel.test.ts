// Cancellation: a call given an abort signal stops when it aborts, with
// hook_cancelled. While it awaits a host capability it stops at once (the
// capability's late result is dropped); once its code runs again it stops at
// the next fuel poll. The next call on the engine is unharmed.
import { describe, expect, it } from "vitest";
import type { Json } from "../../../shared/json";
import { REQUEST_HOOK_EXTENSIONS } from "../../../shared/llm/hook-extensions";
import { LIMITS } from "../../../shared/limits";
import { runModuleExport, type HostCall } from "../../../shared/sandbox";
import { expectNextCallHealthy, failureOf, moduleCode, okValue } from "./helpers";

const run = (body: string, hostCalls: Record<string, HostCall>, signal?: AbortSignal) =>
  runModuleExport({
    code: moduleCode(`return { async transform(input) {\n${body}\n} };`),
    exportPath: ["transform"],
    input: null,
    nowMs: 0,
    seed: "cancel",
    extensions: REQUEST_HOOK_EXTENSIONS,
    hostCalls,
    ...(signal === undefined ? {} : { signal }),
  });

const never: HostCall = () => new Promise<Json>(() => undefined);

describe("cancellation", () => {
  it("an already aborted signal runs none of the call's code", async () => {
    const controller = new AbortController();
    controller.abort();
    let reached = false;
    const report = await run(
      `await rayrun.model({}); return 1;`,
      {
        model: () => {
          reached = true;
          return Promise.resolve(1);
        },
      },
      controller.signal,
    );
    expect(failureOf(report).code).toBe("hook_cancelled");
    expect(reached).toBe(false);
    expect(report.fuelUsed).toBe(0);
  });

  it("an abort while the hook awaits a host call ends it at once, and the call's late result is dropped", async () => {
    const controller = new AbortController();
    const late = Promise.withResolvers<Json>();
    const started = Promise.withResolvers<void>();
    const pending = run(
      `try { await rayrun.lambda({}); } catch (e) { return "caught " + e.message; } return "finished";`,
      {
        lambda: () => {
          started.resolve();
          return late.promise;
        },
      },
      controller.signal,
    );
    await started.promise;
    controller.abort();
    const report = await pending;
    expect(failureOf(report)).toEqual({
      code: "hook_cancelled",
      message: "the hook was cancelled: its caller went away",
    });
    late.resolve("too late");
    await expectNextCallHealthy();
  });

  it("an abort that lands while the hook's code runs stops it at its next fuel poll, not at its budget", async () => {
    // A JS thread cannot see an abort event while the sandbox runs, so this signal reads as
    // aborted from its fourth look on: the first is before the call, the rest are the call's polls.
    const controller = new AbortController();
    let looks = 0;
    Object.defineProperty(controller.signal, "aborted", { get: () => ++looks > 3 });
    const report = await run(`for (;;) {}`, {}, controller.signal);
    expect(failureOf(report).code).toBe("hook_cancelled");
    expect(looks).toBeGreaterThan(3);
    expect(report.fuelUsed).toBeLessThan(LIMITS.fuelPerInvocation / 10);
    await expectNextCallHealthy();
  });

  it("with a signal nobody aborts, the hooks run as before, and a waiting one waits until the abort", async () => {
    const report = await run(
      `return await rayrun.lambda(2);`,
      { lambda: (x) => Promise.resolve(x) },
      new AbortController().signal,
    );
    expect(okValue(report)).toEqual({ value: 2 });
    const controller = new AbortController();
    const waiting = run(`await rayrun.lambda({}); return 1;`, { lambda: never }, controller.signal);
    const raced = await Promise.race([
      waiting.then(() => "settled"),
      new Promise((r) => setTimeout(r, 50, "waiting")),
    ]);
    expect(raced).toBe("waiting");
    controller.abort();
    expect(failureOf(await waiting).code).toBe("hook_cancelled");
  });
});
