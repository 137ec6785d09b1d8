// CPU time of the local dev server's workerd processes, read from /proc (Linux
// only): what the benches report as a request's CPU. Under `wrangler dev` the
// Workers, the Durable Objects, the local D1 and R2 and wrangler's proxy all
// run in workerd, so a difference between two cases is what the extra work
// costs there, whatever process or task it ran in.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchCase } from "./rounds";
import { summarize } from "./stats";

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat on every Linux build Node runs on.
const CLOCK_TICKS_PER_SECOND = 100;

/** User plus system CPU of every running workerd process, in ms (0 where /proc is absent). */
export function workerdCpuMs(): number {
  let ticks = 0;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces; fields follow its closing one.
      const close = stat.lastIndexOf(")");
      if (!stat.slice(0, close).endsWith("(workerd")) continue;
      const fields = stat.slice(close + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone between listing and reading
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

export interface Blocks {
  /** Blocks per case; the cases take turns, block by block. */
  blocks: number;
  /** Sequential requests in one block. */
  size: number;
  /** Before every request, as in the latency rounds. */
  pauseMs: number;
  /** After a block, before its CPU is read: work the block deferred (log batches) lands in it. */
  settleMs: number;
}

/**
 * Each case's CPU per request: the median over its blocks of the workerd CPU a
 * block used, divided by its requests. A tick is 10 ms, so a block must take
 * many of them (100 requests of a ~20 ms case take about 2 s of CPU).
 */
export async function cpuPerRequest(cases: readonly BenchCase<unknown>[], blocks: Blocks): Promise<number[]> {
  const perBlock = cases.map(() => [] as number[]);
  for (let block = 0; block < blocks.blocks; block++) {
    for (const [index, current] of cases.entries()) {
      await sleep(blocks.settleMs);
      const before = workerdCpuMs();
      for (let i = 0; i < blocks.size; i++) {
        if (blocks.pauseMs > 0) await sleep(blocks.pauseMs);
        current.check(await current.send());
      }
      await sleep(blocks.settleMs);
      perBlock[index]?.push((workerdCpuMs() - before) / blocks.size);
    }
  }
  return perBlock.map((samples) => summarize(samples).p50);
}
