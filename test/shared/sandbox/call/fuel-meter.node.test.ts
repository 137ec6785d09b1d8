// The native loop meter leaves step prices where they were: a stage's fuel on
// the metered wasm is its fuel on the package's own build plus its native
// turns (a few percent), however large its input. Node, which compiles both
// builds at run time (workerd imports only the metered one).
import { describe, expect, it } from "vitest";
import { wasmBytes } from "../../../../scripts/meter-wasm.mjs";
import { createAdapterSandbox } from "../../../../shared/sandbox/adapter";
import { createEngineProvider } from "../../../../shared/sandbox/image/provider";
import { BENCH_CONTEXT as context, beforeCode } from "../code";

/** Node compiles wasm from bytes at run time; the Workers types this folder is checked with do not declare it. */
const compile = (bytes: Uint8Array): Promise<WebAssembly.Module> =>
  (WebAssembly as unknown as { compile(bytes: Uint8Array): Promise<WebAssembly.Module> }).compile(bytes);

const metered = createAdapterSandbox(createEngineProvider(() => compile(wasmBytes("metered"))));
const plain = createAdapterSandbox(createEngineProvider(() => compile(wasmBytes("package"))));
const passThrough = beforeCode(`return { action: "continue", arguments: args };`);

/** Chat-like messages of about `kib` KiB of JSON. */
const messages = (kib: number) =>
  Array.from({ length: Math.floor((kib * 1024) / 110) }, (_, i) => ({
    role: i % 2 === 0 ? "assistant" : "user",
    content: `${"x".repeat(80)}${i}`,
  }));

describe("the native loop meter and step prices", () => {
  for (const kib of [10, 100, 200, 240]) {
    it(`a stage passing ${kib} KiB through uses its fuel without the meter plus at most 5 %`, async () => {
      const request = {
        code: passThrough,
        stage: "before" as const,
        context,
        arguments: { messages: messages(kib) },
      };
      const withMeter = await metered.runAdapterStage(request);
      const without = await plain.runAdapterStage(request);
      expect(withMeter.outcome.ok && without.outcome.ok).toBe(true);
      expect(withMeter.fuelUsed).toBeGreaterThan(without.fuelUsed);
      expect(withMeter.fuelUsed).toBeLessThanOrEqual(without.fuelUsed * 1.05);
    });
  }
});
