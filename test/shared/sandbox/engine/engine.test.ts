// The wasm instance: the struct layout the fuel meter relies on is found and
// verified in workerd, and a retired (trapped) instance is replaced.
import { describe, expect, it } from "vitest";
import { workerdEngines } from "../../../../shared/sandbox/wasm-workerd";
import { createEngineProvider } from "../../../../shared/sandbox";
import wasmModule from "../../../../shared/sandbox/wasm/quickjs-metered.wasm";
import { expectNextCallHealthy } from "../helpers";

describe("engine", () => {
  it("finds the interrupt counter, malloc state and stack frame pointer", async () => {
    const engine = await workerdEngines.get();
    expect(engine.layout.interruptCounterOffset).not.toBeNull();
    expect(engine.layout.mallocSizeOffset).not.toBeNull();
    expect(engine.layout.stackFrameOffset).not.toBeNull();
    expect(engine.memory.buffer.byteLength).toBeLessThanOrEqual(engine.maxBytes);
  });

  it("a retired engine is replaced by a fresh instance", async () => {
    const provider = createEngineProvider(() => wasmModule);
    const first = await provider.get();
    expect(await provider.get()).toBe(first);
    provider.retire(first);
    const second = await provider.get();
    expect(second).not.toBe(first);
    expect(second.retired).toBe(false);
  });

  it("after the shared engine is retired the next call still works", async () => {
    const retired = await workerdEngines.get();
    workerdEngines.retire(retired);
    await expectNextCallHealthy();
    expect(await workerdEngines.get()).not.toBe(retired);
  });
});
