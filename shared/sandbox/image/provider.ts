// The isolate's engine: one instance (../engine/engine.ts) and its memory
// images. An instance that trapped is poisoned for good, so it is retired and
// the next call loads a fresh one (its images are rebuilt there).
//
// When the memory layout is recognised (../engine/heap-layout.ts), every call runs in
// the instance's one runtime, restored to a memory image first (images.ts);
// otherwise each call builds a runtime of its own, as a slower fallback.
import { LIMITS } from "../../limits";
import { loadInstance, type InstanceOptions, type WasmSource } from "../engine/engine";
import type { Instance } from "../engine/instance";
import { Images } from "./images";

export interface Engine extends Instance {
  /** Memory images of this instance, or null when its layout was not recognised. */
  readonly images: Images | null;
}

export interface EngineProvider {
  get(): Promise<Engine>;
  /** Drop an engine after a trap; the next `get` builds a new one. */
  retire(engine: Engine): void;
}

export interface EngineOptions extends InstanceOptions {
  /** False runs every call in a runtime of its own (the fallback; benches compare the two). */
  images?: boolean;
  /** Bytes of code images kept (default LIMITS.sandboxImageBytes; tests set less). */
  imageBytes?: number;
  /** Clock for how long failures are remembered (tests move it). */
  now?: () => number;
}

let warnedImages = false;

async function createEngine(source: WasmSource, options: EngineOptions): Promise<Engine> {
  const { instance, heapLayout } = await loadInstance(source, options);
  // The images hold this very object: retiring it (its `retired` flag) is what they check.
  const engine: { -readonly [K in keyof Engine]: Engine[K] } = { ...instance, images: null };
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

export function createEngineProvider(source: WasmSource, options: EngineOptions = {}): EngineProvider {
  let current: Promise<Engine> | undefined;
  return {
    async get() {
      for (;;) {
        if (!current) {
          const pending = createEngine(source, options);
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
