// One QuickJS wasm instance per isolate, with a hard-capped linear memory.
// `setMemoryLimit` alone does not bound memory in this build (see layout.ts),
// so the `maximum` of the WebAssembly.Memory is the real byte cap. An instance
// that trapped (or ran out of memory while creating a runtime) is poisoned for
// good, so it is retired and the next call loads a fresh one.
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { LIMITS } from "../limits";
import { probeLayout, type EngineLayout } from "./layout";

const PAGE = 65_536;

export interface Engine {
  readonly module: QuickJSWASMModule;
  readonly memory: WebAssembly.Memory;
  readonly maxBytes: number;
  readonly layout: EngineLayout;
  /** Set once the instance trapped; a retired engine is never handed out again. */
  retired: boolean;
}

export type WasmSource = () => WebAssembly.Module | Promise<WebAssembly.Module>;

let warnedLayout = false;

async function createEngine(source: WasmSource, maxBytes: number): Promise<Engine> {
  const wasmModule = await source();
  const initialPages = Math.min(256, maxBytes / PAGE);
  const memory = new WebAssembly.Memory({ initial: initialPages, maximum: maxBytes / PAGE });
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule, wasmMemory: memory }),
  );
  const layout = probeLayout(module, memory);
  const complete =
    layout.interruptCounterOffset !== null &&
    layout.mallocSizeOffset !== null &&
    layout.stackFrameOffset !== null;
  if (!complete && !warnedLayout) {
    warnedLayout = true;
    console.warn(
      "sandbox: QuickJS struct layout not recognised " +
        JSON.stringify(layout) +
        "; fuel falls back to the default 10k-step poll interval and/or unweighted steps",
    );
  }
  return { module, memory, maxBytes, layout, retired: false };
}

export interface EngineProvider {
  get(): Promise<Engine>;
  /** Drop an engine after a trap; the next `get` builds a new one. */
  retire(engine: Engine): void;
}

export function createEngineProvider(
  source: WasmSource,
  maxBytes: number = LIMITS.sandboxMemoryBytes,
): EngineProvider {
  let current: Promise<Engine> | undefined;
  return {
    async get() {
      for (;;) {
        if (!current) {
          const pending = createEngine(source, maxBytes);
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
    },
  };
}

/** True when the instance is at (or within `slackBytes` of) its hard cap. */
export function nearMemoryCap(engine: Engine, slackBytes = 2 * PAGE): boolean {
  return engine.memory.buffer.byteLength + slackBytes >= engine.maxBytes;
}

interface EmscriptenHeap {
  _malloc?: (bytes: number) => number;
  _free?: (pointer: number) => void;
}
let warnedProbe = false;

/**
 * True when `bytes` of contiguous memory can still be allocated in the
 * instance (grown up to its cap if need be): a malloc/free probe, which fails
 * by returning 0, never by trapping. Used before growing the warm pool so the
 * pool never takes what calls need. Falls back to the cap check when the
 * emscripten heap functions are not reachable.
 */
export function canAllocate(engine: Engine, bytes: number): boolean {
  const heap = (engine.module as unknown as { module?: EmscriptenHeap }).module;
  const malloc = heap?._malloc;
  const free = heap?._free;
  if (typeof malloc !== "function" || typeof free !== "function") {
    if (!warnedProbe) {
      warnedProbe = true;
      console.warn(
        "sandbox: the emscripten heap is not reachable; the warm pool falls back to the memory cap check",
      );
    }
    return engine.memory.buffer.byteLength + bytes <= engine.maxBytes;
  }
  const pointer = malloc(bytes);
  if (pointer === 0) return false;
  free(pointer);
  return true;
}
