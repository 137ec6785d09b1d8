import { afterEach, describe, expect, it, vi } from "vitest";
import { boundedCache } from "../../shared/cache";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("boundedCache", () => {
  it("keeps at most `entries`, dropping the least recently used", () => {
    const cache = boundedCache<string, number>({ entries: 3 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    // A read makes "a" the most recently used: "b" is dropped next.
    expect(cache.get("a")).toBe(1);
    cache.set("d", 4);
    expect(cache.size).toBe(3);
    expect(cache.get("b")).toBeUndefined();
    expect([...cache.keys()].toSorted()).toEqual(["a", "c", "d"]);
    // Setting a kept key again replaces it without dropping another.
    cache.set("c", 30);
    expect(cache.size).toBe(3);
    expect(cache.get("c")).toBe(30);
  });

  it("keeps at most `size` as `sizeOf` counts it, and never an entry larger than that", () => {
    const cache = boundedCache<string, { bytes: number }>({ size: 10, sizeOf: (entry) => entry.bytes });
    cache.set("a", { bytes: 4 });
    cache.set("b", { bytes: 4 });
    cache.set("c", { bytes: 4 });
    expect(cache.get("a")).toBeUndefined();
    expect(cache.calculatedSize).toBe(8);
    cache.set("huge", { bytes: 11 });
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.size).toBe(2);
    // A size under 1 counts as 1 (lru-cache refuses 0).
    cache.set("empty", { bytes: 0 });
    expect(cache.get("empty")).toEqual({ bytes: 0 });
    expect(cache.calculatedSize).toBe(9);
  });

  it("serves an entry for `ttlMs` after it was set, by the wall clock, then never again", () => {
    let now = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const cache = boundedCache<string, string>({ entries: 8, ttlMs: 60_000 });
    cache.set("k", "v");
    now += 30_000;
    // A read does not extend the age.
    expect(cache.get("k")).toBe("v");
    now += 30_000;
    expect(cache.get("k")).toBe("v");
    now += 1;
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
    // Setting again starts a new age.
    cache.set("k", "w");
    now += 60_000;
    expect(cache.get("k")).toBe("w");
  });

  it("without `ttlMs`, an entry stays until it is dropped", () => {
    let now = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const cache = boundedCache<string, string>({ entries: 2 });
    cache.set("k", "v");
    now += 365 * 86_400_000;
    expect(cache.get("k")).toBe("v");
  });

  it("holds a promise, so concurrent callers share one load", async () => {
    const cache = boundedCache<string, Promise<number>>({ entries: 2 });
    let loads = 0;
    const load = (key: string) => {
      let pending = cache.get(key);
      if (pending === undefined) {
        loads++;
        pending = Promise.resolve(42);
        cache.set(key, pending);
      }
      return pending;
    };
    expect(await Promise.all([load("a"), load("a")])).toEqual([42, 42]);
    expect(loads).toBe(1);
  });
});
