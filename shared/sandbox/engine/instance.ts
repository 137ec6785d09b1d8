// One loaded QuickJS wasm instance as the sandbox's parts see it: its module,
// its hard-capped memory and the struct layout probed at load (engine.ts). The
// memory images are added on top (../image/provider.ts); nothing below needs them.
import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import type { EngineLayout } from "./layout";
import type { NativeMeter } from "./native-meter";

const PAGE = 65_536;

export interface EmscriptenHeap {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

export interface Instance {
  readonly module: QuickJSWASMModule;
  readonly memory: WebAssembly.Memory;
  readonly maxBytes: number;
  readonly layout: EngineLayout;
  /** The loop meter of the engine's native code, or null when the wasm was built without one. */
  readonly meter: NativeMeter | null;
  /** The instance's allocator, reached through the emscripten module. */
  readonly heap: EmscriptenHeap;
  /** Set once the instance trapped; a retired engine is never handed out again. */
  retired: boolean;
}

/** True when the instance is at (or within `slackBytes` of) its hard cap. */
export function nearMemoryCap(engine: Instance, slackBytes = 2 * PAGE): boolean {
  return engine.memory.buffer.byteLength + slackBytes >= engine.maxBytes;
}
