// The bounded cache every isolate-local (and Durable Object) copy uses: an
// lru-cache that drops the least recently used entry past its bound, with an
// optional age. Bounds and ages are in KNOBS (./knobs.ts).
import { LRUCache } from "lru-cache";

export type { LRUCache } from "lru-cache";

export type CacheBounds<V> = (
  | {
      /** Entries kept. */
      entries: number;
    }
  | {
      /** Total size kept, as `sizeOf` counts it (bytes); an entry larger than this is not kept. */
      size: number;
      /** An entry's size; values under 1 count as 1. */
      sizeOf: (value: V) => number;
    }
) & {
  /** Milliseconds after it was set that an entry is no longer served; absent: until it is dropped. */
  ttlMs?: number;
};

/**
 * A cache within `bounds`. `get` makes an entry the most recently used; an
 * entry past `ttlMs` (by the wall clock, which test clocks and Workers' frozen
 * time both govern) is never returned. A promise may be stored (in-flight
 * dedupe): the caller deletes it when it rejects.
 */
export function boundedCache<K extends {}, V extends {}>(bounds: CacheBounds<V>): LRUCache<K, V> {
  const { ttlMs } = bounds;
  // Entries are counted as size 1 each rather than bounded with `max`: lru-cache
  // preallocates `max` slots (~65 KB and a fraction of a millisecond of CPU for
  // 4096), which every isolate and every WorkspaceObject would pay up front.
  const sizeOf = "entries" in bounds ? () => 1 : (value: V) => Math.max(1, Math.ceil(bounds.sizeOf(value)));
  return new LRUCache<K, V>({
    maxSize: "entries" in bounds ? bounds.entries : bounds.size,
    sizeCalculation: sizeOf,
    ...(ttlMs === undefined
      ? {}
      : {
          ttl: ttlMs,
          // No cached "now": lru-cache resets one with a timer, which a Worker
          // may never run once the request that set it has ended.
          ttlResolution: 0,
          perf: Date,
        }),
  });
}
