// The loop meter of the engine's native code (shared/sandbox/engine/native-meter.ts)
// in workerd, on the wasm the Workers import. The meter's own arithmetic is
// tested on a small module in Node (test/scripts/meter-wasm.node.test.ts);
// the hostile suite has the cases it exists for (ropes).
import { describe, expect, it } from "vitest";
import wasmModule from "../../../../shared/sandbox/wasm/quickjs-metered.wasm";
import { LIMITS } from "../../../../shared/limits";
import { createAdapterSandbox, createEngineProvider } from "../../../../shared/sandbox";
import { NATIVE_QUANTUM } from "../../../../shared/sandbox/engine/native-meter";
import { STACK_WINDOW_BYTES } from "../../../../shared/sandbox/image/residency";
import { beforeCode, CONTINUE, SEED_ADAPTER } from "../code";
import { failure, failureOf, okValue, testContext } from "../helpers";

/** A strict comparison of two strings of `chars` characters that differ only at the end: one built-in step. */
const oneLongCompare = (chars: number) =>
  beforeCode(`
    const a = "x".repeat(${chars}) + "a";
    const b = "x".repeat(${chars}) + "b";
    context.log.info("compared", { equal: a === b });
    ${CONTINUE}`);

describe("the native loop meter", () => {
  it("is built into the wasm the Workers import, deep in the C stack's unused part", async () => {
    const engine = await createEngineProvider(() => wasmModule).get();
    const meter = engine.meter;
    expect(meter).not.toBeNull();
    const layout = engine.images?.layout;
    if (!meter || !layout) throw new Error("no meter or no images");
    expect(meter.turns).toBe(LIMITS.nativeLoopTurns);
    expect(meter.address).toBeGreaterThanOrEqual(layout.staticBytes);
    expect(meter.address + 24).toBeLessThanOrEqual(layout.heapBase - STACK_WINDOW_BYTES);
  });

  it("a built-in that runs past the phase's native turns before its next step stops the hook with hook_timeout, its whole fuel reported; the next call is healthy", async () => {
    const provider = createEngineProvider(() => wasmModule, { nativeLoopTurns: 2 * NATIVE_QUANTUM });
    const sandbox = createAdapterSandbox(provider);
    const run = (code: string) =>
      sandbox.runAdapterStage({ code, stage: "before", context: testContext(), arguments: { query: "q" } });
    // Under the stop: one comparison of half a quantum's characters.
    expect(okValue(await run(oneLongCompare(NATIVE_QUANTUM / 2)))).toEqual({
      action: "continue",
      arguments: {},
    });
    // Over it: one comparison of two and a half quanta's characters, in one step.
    const stopped = await run(oneLongCompare(2.5 * NATIVE_QUANTUM));
    expect(failureOf(stopped)).toEqual(failure("hook_timeout", /built-in work ran past its budget/));
    expect(stopped.fuelUsed).toBeGreaterThanOrEqual(LIMITS.fuelPerInvocation);
    const next = await run(SEED_ADAPTER);
    expect(okValue(next)).toEqual({ action: "continue", arguments: { q: "release: q" } });
  });

  it("native turns are charged as fuel: a hook that compares longer strings uses more, and a call of the same code the same", async () => {
    const sandbox = createAdapterSandbox(createEngineProvider(() => wasmModule));
    const fuelOf = async (chars: number) => {
      const report = await sandbox.runAdapterStage({
        code: oneLongCompare(chars),
        stage: "before",
        context: testContext(),
        arguments: { query: "q" },
      });
      okValue(report);
      return report.fuelUsed;
    };
    const short = await fuelOf(1_000);
    const long = await fuelOf(1_000_000);
    // A million characters compared (and written by repeat) are thousands of units more.
    expect(long - short).toBeGreaterThan(1_000_000 / 256);
    expect(await fuelOf(1_000_000)).toBe(long);
  });
});
