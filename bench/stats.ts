// Small statistics helpers for the bench.
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export interface Summary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = samples.toSorted((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);

/** A new random order of `items` (sorting by random keys is unbiased), so no case always follows another. */
export function shuffled<T>(items: readonly T[]): T[] {
  return items
    .map((item) => ({ item, key: Math.random() }))
    .toSorted((a, b) => a.key - b.key)
    .map(({ item }) => item);
}

/**
 * A 95% interval for `combine` of the cases' p-th percentiles, by the paired
 * bootstrap over rounds: every case was measured once per round (samples[c][i]
 * in round i), so a resample takes whole rounds and keeps whatever the machine
 * did to all of them.
 */
export function pairedInterval(
  samples: readonly (readonly number[])[],
  combine: (percentiles: readonly number[]) => number,
  p: number,
  resamples = 2000,
): { low: number; high: number } {
  const n = Math.min(...samples.map((s) => s.length));
  const drawn = samples.map(() => Array.from({ length: n }, () => 0));
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) {
      const round = Math.floor(Math.random() * n);
      samples.forEach((s, c) => {
        const row = drawn[c];
        if (row) row[i] = s[round] ?? Number.NaN;
      });
    }
    values.push(
      combine(
        drawn.map((row) =>
          percentile(
            row.toSorted((a, b) => a - b),
            p,
          ),
        ),
      ),
    );
  }
  const sorted = values.toSorted((a, b) => a - b);
  return { low: percentile(sorted, 2.5), high: percentile(sorted, 97.5) };
}

/** A 95% interval for percentile(x, p) − percentile(y, p), x[i] and y[i] measured in the same round. */
export const differenceInterval = (
  x: readonly number[],
  y: readonly number[],
  p: number,
  resamples = 2000,
): { low: number; high: number } => pairedInterval([x, y], ([a = 0, b = 0]) => a - b, p, resamples);
