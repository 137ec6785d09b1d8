// How a pre-warmed stage's cost depends on the time since the sandbox last
// ran (bench:sandbox prints it). The gateway bench's paced runs see stages
// cost about twice their back-to-back time; this table shows whether that is
// the gap's length or the process sitting idle: "spin" keeps this thread busy
// for the whole gap with a clock-reading loop that touches almost nothing,
// "sleep" lets it idle. Modes are interleaved in a shuffled order each round,
// and the pool is refilled before the gap, as the gateway refills after a
// response.
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { createAdapterSandbox } from "../shared/sandbox/adapter";
import type { ToolCallContext } from "../shared/sandbox/types";
import { ADAPTER_2KB, adapterCode } from "../test/shared/sandbox/code";
import { nodeEngines } from "./node-engine";
import { ms, shuffled, summarize } from "./stats";

const TRIVIAL_BEFORE = adapterCode(
  `before({ arguments: args }) { return { action: "continue", arguments: args }; },`,
);

type Gap = { label: string; wait: () => Promise<unknown> };

const spin = (gapMs: number) => {
  const until = performance.now() + gapMs;
  while (performance.now() < until) {
    // Busy on purpose: the thread never idles during the gap.
  }
};

const GAPS: Gap[] = [
  { label: "back to back", wait: () => nextTurn() },
  { label: "sleep 1 ms", wait: () => sleep(1) },
  { label: "sleep 5 ms", wait: () => sleep(5) },
  { label: "sleep 20 ms", wait: () => sleep(20) },
  {
    label: "spin 20 ms",
    wait: async () => {
      await nextTurn();
      spin(20);
    },
  },
];

export async function coldStages(rounds: number, context: ToolCallContext): Promise<void> {
  const pooled = createAdapterSandbox(nodeEngines);
  const cases = [
    { name: "trivial before", code: TRIVIAL_BEFORE },
    { name: "~2 KB adapter before", code: ADAPTER_2KB },
  ];
  const samples = new Map<string, number[]>();
  const warmUp = 30;
  for (let round = 0; round < rounds + warmUp; round++) {
    const order = shuffled(GAPS.flatMap((gap) => cases.map((c) => ({ gap, c }))));
    for (const { gap, c } of order) {
      await pooled.warmAdapter(c.code);
      await gap.wait();
      const started = performance.now();
      const report = await pooled.runAdapterStage({
        code: c.code,
        stage: "before",
        context,
        arguments: { query: "The Workers release", limit: 5 },
      });
      const elapsed = performance.now() - started;
      if (!report.outcome.ok) throw new Error(`${c.name} failed: ${JSON.stringify(report.outcome.error)}`);
      if (round < warmUp) continue;
      const key = `${c.name}\n${gap.label}`;
      const list = samples.get(key) ?? [];
      list.push(elapsed);
      samples.set(key, list);
    }
  }
  console.log(
    `pre-warmed stage after a gap since the last sandbox work, ${rounds} calls per row, interleaved`,
  );
  console.log(
    `${"stage".padEnd(24)} ${"gap".padEnd(14)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p50 − back to back".padStart(20)}`,
  );
  for (const c of cases) {
    const base = summarize(samples.get(`${c.name}\n${GAPS[0]?.label}`) ?? []).p50;
    for (const gap of GAPS) {
      const s = summarize(samples.get(`${c.name}\n${gap.label}`) ?? []);
      console.log(
        `${c.name.padEnd(24)} ${gap.label.padEnd(14)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p50 - base).padStart(20)}`,
      );
    }
  }
  console.log("");
}
