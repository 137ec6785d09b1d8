// The benches' measuring loop: every case once per round, in a shuffled order,
// after a pause, each reply checked. Samples stay in round order, so the i-th
// samples of all cases were taken in the same round (the paired intervals of
// stats.ts rely on it).
import { setTimeout as sleep } from "node:timers/promises";
import { shuffled } from "./stats";

// Methods, not function properties: a case of any reply type is a BenchCase<unknown> to runRounds.
export interface BenchCase<R> {
  name: string;
  send(): Promise<R>;
  /** Throws when the reply is not what the case expects (a bench of failures measures nothing). */
  check(reply: R): void;
}

export interface Rounds {
  warmup: number;
  requests: number;
  /** Not timed: lets what a request left behind settle, as between an agent's calls. */
  pauseMs: number;
}

/**
 * Runs `warmup + requests` rounds and answers each case's times (ms) of the
 * measured rounds, and the whole run's seconds. `onSample` sees every request,
 * warm-up ones too (`measured` false), in the order they were sent.
 */
export async function runRounds<C extends BenchCase<unknown>>(
  cases: readonly C[],
  rounds: Rounds,
  onSample?: (current: C, index: number, elapsed: number, measured: boolean) => void,
): Promise<{ samples: number[][]; seconds: number }> {
  const samples = cases.map(() => [] as number[]);
  const order = cases.map((_, i) => i);
  const started = performance.now();
  for (let round = 0; round < rounds.warmup + rounds.requests; round++) {
    for (const index of shuffled(order)) {
      const current = cases[index];
      if (!current) continue;
      if (rounds.pauseMs > 0) await sleep(rounds.pauseMs);
      const t0 = performance.now();
      const reply = await current.send();
      const elapsed = performance.now() - t0;
      current.check(reply);
      const measured = round >= rounds.warmup;
      if (measured) samples[index]?.push(elapsed);
      onSample?.(current, index, elapsed, measured);
    }
  }
  return { samples, seconds: (performance.now() - started) / 1000 };
}
