// One QuickJS wasm instance, with a hard-capped linear memory.
// `setMemoryLimit` alone does not bound memory in this build (see layout.ts),
// so the `maximum` of the WebAssembly.Memory is the real byte cap. Loading
// probes where the instance keeps its state: the runtime's structs (layout.ts)
// for fuel, the allocator's words (heap-layout.ts) for memory images. The
// images themselves are built on top (../image/provider.ts).
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { LIMITS } from "../../limits";
import { probeHeapLayout, type HeapLayout } from "./heap-layout";
import type { EmscriptenHeap, Instance } from "./instance";
import { probeLayout } from "./layout";
import { meterOf, startNativeMeter } from "./native-meter";

const PAGE = 65_536;

export type WasmSource = () => WebAssembly.Module | Promise<WebAssembly.Module>;

export interface InstanceOptions {
  maxBytes?: number;
  /** Loop turns of native code per phase (default LIMITS.nativeLoopTurns; tests set less). */
  nativeLoopTurns?: number;
}

/** A loaded instance, and where its allocator keeps the heap (null when not recognised: no memory images). */
export interface LoadedInstance {
  readonly instance: Instance;
  readonly heapLayout: HeapLayout | null;
}

let warnedLayout = false;
let warnedMeter = false;

function emscriptenHeap(module: QuickJSWASMModule): EmscriptenHeap | null {
  const heap = (module as unknown as { module?: Partial<EmscriptenHeap> }).module;
  return typeof heap?._malloc === "function" && typeof heap._free === "function"
    ? (heap as EmscriptenHeap)
    : null;
}

export async function loadInstance(
  source: WasmSource,
  options: InstanceOptions = {},
): Promise<LoadedInstance> {
  const maxBytes = options.maxBytes ?? LIMITS.sandboxMemoryBytes;
  const wasmModule = await source();
  const initialPages = Math.min(256, maxBytes / PAGE);
  const memory = new WebAssembly.Memory({ initial: initialPages, maximum: maxBytes / PAGE });
  const meter = meterOf(wasmModule, options.nativeLoopTurns);
  // The glue's start-up runs metered loops before any call sets a budget.
  startNativeMeter({ meter, memory });
  if (meter === null && !warnedMeter) {
    warnedMeter = true;
    console.warn("sandbox: the QuickJS wasm has no loop meter; built-ins' native work is not bounded");
  }
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule, wasmMemory: memory }),
  );
  const heap = emscriptenHeap(module);
  // The heap layout is probed first, while the heap holds nothing but the glue's own allocations.
  const heapLayout: HeapLayout | null = heap === null ? null : probeHeapLayout(heap, memory);
  const layout = probeLayout(module, memory);
  const complete =
    layout.interruptCounterOffset !== null &&
    layout.mallocSizeOffset !== null &&
    layout.stackFrameOffset !== null &&
    layout.codeLength !== null;
  if (!complete && !warnedLayout) {
    warnedLayout = true;
    console.warn(
      "sandbox: QuickJS struct layout not recognised " +
        JSON.stringify(layout) +
        "; fuel falls back to the default 10k-step poll interval and/or coarser step prices",
    );
  }
  const instance: Instance = {
    module,
    memory,
    maxBytes,
    layout,
    meter,
    heap: heap ?? { _malloc: () => 0, _free: () => undefined },
    retired: false,
  };
  return { instance, heapLayout };
}
