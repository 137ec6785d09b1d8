// One QuickJS wasm instance per isolate, with a hard-capped linear memory.
// `setMemoryLimit` alone does not bound memory in this build (see layout.ts),
// so the `maximum` of the WebAssembly.Memory is the real byte cap. An instance
// that trapped is poisoned for good, so it is retired and the next call loads
// a fresh one (its images are rebuilt there).
//
// When the memory layout is recognised (heap-layout.ts), every call runs in
// the instance's one runtime, restored to a memory image first (images.ts);
// otherwise each call builds a runtime of its own, as a slower fallback.
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { LIMITS } from "../limits";
import { probeHeapLayout, type HeapLayout } from "./heap-layout";
import { Images } from "./images";
import type { EmscriptenHeap, Instance } from "./instance";
import { probeLayout } from "./layout";
import { meterOf, startNativeMeter } from "./native-meter";

const PAGE = 65_536;

export interface Engine extends Instance {
  /** Memory images of this instance, or null when its layout was not recognised. */
  readonly images: Images | null;
}

export type WasmSource = () => WebAssembly.Module | Promise<WebAssembly.Module>;

let warnedLayout = false;
let warnedImages = false;
let warnedMeter = false;

function emscriptenHeap(module: QuickJSWASMModule): EmscriptenHeap | null {
  const heap = (module as unknown as { module?: Partial<EmscriptenHeap> }).module;
  return typeof heap?._malloc === "function" && typeof heap._free === "function"
    ? (heap as EmscriptenHeap)
    : null;
}

async function createEngine(source: WasmSource, maxBytes: number, options: EngineOptions): Promise<Engine> {
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
  const engine: { -readonly [K in keyof Engine]: Engine[K] } = {
    module,
    memory,
    maxBytes,
    layout,
    meter,
    heap: heap ?? { _malloc: () => 0, _free: () => undefined },
    images: null,
    retired: false,
  };
  if (options.images !== false && heapLayout !== null) {
    engine.images = Images.create(engine, heapLayout, {
      imageBytes: options.imageBytes ?? LIMITS.sandboxImageBytes,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }
  if (heapLayout === null && options.images !== false && !warnedImages) {
    warnedImages = true;
    console.warn(
      "sandbox: the wasm memory layout was not recognised; every call builds a runtime of its own (no memory images)",
    );
  }
  return engine;
}

export interface EngineProvider {
  get(): Promise<Engine>;
  /** Drop an engine after a trap; the next `get` builds a new one. */
  retire(engine: Engine): void;
}

export interface EngineOptions {
  maxBytes?: number;
  /** False runs every call in a runtime of its own (the fallback; benches compare the two). */
  images?: boolean;
  /** Bytes of code images kept (default LIMITS.sandboxImageBytes; tests set less). */
  imageBytes?: number;
  /** Loop turns of native code per phase (default LIMITS.nativeLoopTurns; tests set less). */
  nativeLoopTurns?: number;
  /** Clock for how long failures are remembered (tests move it). */
  now?: () => number;
}

export function createEngineProvider(source: WasmSource, options: EngineOptions = {}): EngineProvider {
  const maxBytes = options.maxBytes ?? LIMITS.sandboxMemoryBytes;
  let current: Promise<Engine> | undefined;
  return {
    async get() {
      for (;;) {
        if (!current) {
          const pending = createEngine(source, maxBytes, options);
          current = pending;
          // A failed load must not be cached forever.
          pending.catch(() => {
            if (current === pending) current = undefined;
          });
        }
        const pending = current;
        const engine = await pending;
        if (!engine.retired) return engine;
        if (current === pending) current = undefined;
      }
    },
    retire(engine) {
      engine.retired = true;
      engine.images?.retire();
    },
  };
}
