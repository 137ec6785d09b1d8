// Memory images of one instance: a root (runtime and context), a base per
// prelude (the root plus the prelude) and an image per compiled code (its
// base plus the module's top level, run with the fixed clock and seed). A new
// code costs one module evaluation on a restored base; every call of it
// starts from its image (image.ts, residency.ts).
//
// Each image is sealed before it is taken: its free chunks are allocated, so
// what a call allocates comes from the heap's top and the bytes a call holds
// are read from one word (../call/fuel.ts prices steps by them). The data a
// module's top level left (not its bytecode, priced per function) counts too.
import { LRUCache } from "lru-cache";
import { KNOBS } from "../../knobs";
import { Base } from "../engine/base";
import { heapCensus, heapTop, trimTop, type HeapLayout } from "../engine/heap-layout";
import type { Instance } from "../engine/instance";
import { Vm } from "../engine/vm";
import type { PreludeExtension } from "../prelude";
import type { LogEntry, SandboxError } from "../types";
import { capture, captureDelta, deltaBytes, expand, snapshotBytes, type Delta, type Snapshot } from "./image";
import { ImageResidency } from "./residency";

/** A prelude installed on the root, and its image. */
export interface BaseImage {
  readonly base: Base;
  readonly snapshot: Snapshot;
  /** Bytes in use in the base's heap (everything below its top, once sealed). */
  readonly used: number;
}

/** A compiled code's state after its top level, ready for calls. */
export interface CodeImage<P = unknown> {
  /** The compiled code, and what its module phase read (images of one code for different purposes differ). */
  readonly code: string;
  readonly kind: string;
  readonly baseImage: BaseImage;
  readonly delta: Delta;
  /** What the module phase read for calls (e.g. an adapter's stages). */
  readonly value: P;
  /** Heap bytes of data the top level left (its bytecode excluded). */
  readonly held: number;
  /** The hook's largest live function, in bytes of bytecode. */
  readonly codeBytes: number;
  /** Fuel the top level used, and the budget it ran with. */
  readonly moduleFuel: number;
  readonly moduleBudget: number;
  /** Log entries the top level wrote; every call's report starts with them. */
  readonly logs: readonly LogEntry[];
}

/** A top level that failed on its own (throw, fuel, invalid module): the same code fails the same way. */
export interface ModuleFailure {
  readonly error: SandboxError;
  readonly fuelUsed: number;
  /** The budget it failed with: a caller with more fuel builds again. */
  readonly budget: number;
}

export class Images {
  readonly residency: ImageResidency;
  private readonly bases = new Map<string, BaseImage>();
  /**
   * Images by code, then by kind. Keyed by the code string itself: callers
   * pass the same string object for a code (revision caches), whose hash the
   * engine keeps, where a key built per call would be hashed anew each time.
   */
  private readonly codes: LRUCache<string, Map<string, CodeImage>>;
  /** Whole bytes of the images in use, so their calls restore with one copy per region. */
  private readonly expanded: LRUCache<CodeImage, Snapshot>;
  private readonly failures: LRUCache<string, ModuleFailure>;

  private constructor(
    readonly engine: Instance,
    readonly vm: Vm,
    readonly layout: HeapLayout,
    private readonly root: Snapshot,
    options: ImagesOptions,
  ) {
    this.residency = new ImageResidency(engine, vm, layout);
    this.codes = new LRUCache<string, Map<string, CodeImage>>({
      maxSize: options.imageBytes,
      sizeCalculation: (kinds) => {
        let bytes = 1;
        for (const image of kinds.values()) bytes += deltaBytes(image.delta);
        return bytes;
      },
      dispose: (kinds) => {
        for (const image of kinds.values()) this.expanded.delete(image);
      },
    });
    this.expanded = new LRUCache<CodeImage, Snapshot>({
      maxSize: KNOBS.sandboxExpandedImageBytes,
      sizeCalculation: (snapshot) => snapshotBytes(snapshot),
    });
    this.failures = new LRUCache<string, ModuleFailure>({
      max: KNOBS.sandboxRememberedFailures,
      ttl: KNOBS.sandboxRememberedFailureMs,
      // Read the clock on every check (no cached "now"), so the bound is exact.
      ttlResolution: 0,
      ...(options.now === undefined ? {} : { perf: { now: options.now } }),
    });
  }

  /** The instance's images, once its runtime and context exist; throws if they cannot be made. */
  static create(engine: Instance, layout: HeapLayout, options: ImagesOptions): Images {
    const vm = Vm.create(engine);
    trimTop(engine.memory, layout);
    return new Images(engine, vm, layout, capture(engine.memory, layout), options);
  }

  /** The base of a prelude, built on first use (throws PreludeFailure: never a hook's fault). */
  base(extensions: readonly PreludeExtension[]): BaseImage {
    const key = extensions.map((extension) => extension.name).join("+");
    const known = this.bases.get(key);
    if (known !== undefined) return known;
    this.residency.enter(null, this.root);
    try {
      const base = Base.install(this.vm, extensions, this.engine);
      this.seal();
      trimTop(this.engine.memory, this.layout);
      const built: BaseImage = {
        base,
        snapshot: capture(this.engine.memory, this.layout),
        used: this.census().used,
      };
      this.bases.set(key, built);
      return built;
    } finally {
      this.residency.leave(null, this.root.end);
    }
  }

  /** The image of a code for `kind`, the failure remembered for it, or nothing yet. */
  find(code: string, kind: string, moduleBudget: number): CodeImage | ModuleFailure | undefined {
    const image = this.codes.get(code)?.get(kind);
    if (image !== undefined) return image;
    const failure = this.failures.get(failureKey(code, kind));
    // A top level that ran out of fuel may finish with more.
    if (failure !== undefined && (failure.error.code !== "hook_timeout" || moduleBudget <= failure.budget))
      return failure;
    return undefined;
  }

  remember(code: string, kind: string, failure: ModuleFailure): void {
    this.failures.set(failureKey(code, kind), failure);
  }

  /** Keeps a built image for later calls. */
  keep(image: CodeImage): void {
    this.failures.delete(failureKey(image.code, image.kind));
    const kinds = this.codes.get(image.code) ?? new Map<string, CodeImage>();
    const replaced = kinds.get(image.kind);
    if (replaced !== undefined) this.expanded.delete(replaced);
    kinds.set(image.kind, image);
    // Set again so the LRU counts the entry's new size.
    this.codes.set(image.code, kinds);
  }

  /** Drops the expanded copy of an image that was not kept (its one call is over). */
  forget(image: CodeImage): void {
    this.expanded.delete(image);
  }

  /** The whole bytes to restore for a call of `image`, expanded from its delta once while it is in use. */
  stateOf(image: CodeImage): Snapshot {
    let snapshot = this.expanded.get(image);
    if (snapshot === undefined) {
      snapshot = expand(image.delta);
      this.expanded.set(image, snapshot);
    }
    return snapshot;
  }

  /** The bytes the heap holds below `top`, and its free chunks. */
  census(): { used: number; free: number[] } {
    return heapCensus(this.engine.memory, this.layout);
  }

  /** The allocator's `top` now. */
  top(): number {
    return heapTop(this.engine.memory, this.layout);
  }

  /**
   * Allocates every free chunk below `top`, so that what runs next allocates
   * from `top` and the bytes it holds read as `top`'s growth. A few passes
   * settle the allocator's splits.
   */
  seal(): void {
    for (let pass = 0; pass < 4; pass++) {
      const { free } = this.census();
      if (free.length === 0) return;
      for (const size of free) if (this.engine.heap._malloc(size - 8) === 0) return;
    }
  }

  /** The state of memory now, as a delta from `base` (its free top trimmed first, see trimTop). */
  captureCode(base: BaseImage): Delta {
    trimTop(this.engine.memory, this.layout);
    return captureDelta(this.engine.memory, this.layout, base.snapshot);
  }

  /** Counters and sizes (tests, benches, the closing of an engine). */
  stats(): ImageStats {
    this.failures.purgeStale();
    let deltaTotal = 0;
    let codes = 0;
    for (const kinds of this.codes.values()) {
      for (const image of kinds.values()) {
        deltaTotal += deltaBytes(image.delta);
        codes++;
      }
    }
    let baseTotal = snapshotBytes(this.root);
    for (const base of this.bases.values()) baseTotal += snapshotBytes(base.snapshot);
    return {
      codes,
      bases: this.bases.size,
      baseBytes: baseTotal,
      imageBytes: deltaTotal,
      expandedBytes: this.expanded.calculatedSize,
      parkedBytes: this.residency.parkedBytes,
      rememberedFailures: this.failures.size,
    };
  }

  /** Drops every code image (remembered failures stay). */
  clear(): void {
    this.codes.clear();
    this.expanded.clear();
  }

  /** The engine trapped: nothing here will be restored again. */
  retire(): void {
    this.residency.retire();
    this.clear();
    this.bases.clear();
  }
}

/** Failures are rare: their key may be built per lookup. */
const failureKey = (code: string, kind: string): string => `${kind}\u0000${code}`;

export interface ImagesOptions {
  /** Bytes of code images kept, least recently used dropped first. */
  imageBytes: number;
  /** Clock for remembered failures' expiry. */
  now?: () => number;
}

export interface ImageStats {
  codes: number;
  bases: number;
  /** The root's and bases' whole images. */
  baseBytes: number;
  /** Code images as kept (deltas from their bases). */
  imageBytes: number;
  /** Whole copies of the images in use. */
  expandedBytes: number;
  parkedBytes: number;
  rememberedFailures: number;
}
