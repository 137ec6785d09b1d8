// Sandbox bench (Node): times every hostile case and a normal adapter call
// with the same sandbox code the Workers run (wasm loaded from node_modules),
// and calibrates fuel units per millisecond of CPU.
//
//   npx tsx bench/sandbox.ts [--runs N] [--filter text] [--normal-runs N] [--warm-calls N] [--cold-rounds N]
//                            [--only phases|warm|cold]
//
// The first table compares fresh and pre-warmed sessions (shared/sandbox/pool.ts)
// per call on the critical path, interleaved call by call; the pool is refilled
// between calls outside the timed span, as the gateway does in ctx.waitUntil.
// The second splits a pre-warmed stage's cost by the time since the sandbox
// last ran (cold-stages.ts).
//
// Node's clock advances during CPU work (unlike a deployed Worker's), so these
// are CPU times of the sandbox itself on this machine.
import { LIMITS } from "../shared/limits";
import { createAdapterSandbox } from "../shared/sandbox/adapter";
import type { Json } from "../shared/json";
import type { ToolCallContext } from "../shared/sandbox/types";
import { ADAPTER_2KB, BENCH_CONTEXT, beforeCode, CONTINUE, SEED_ADAPTER } from "../test/shared/sandbox/code";
import { HOSTILE_CASES } from "../test/shared/sandbox/hostile-cases";
import { coldStages } from "./cold-stages";
import { nodeEngines } from "./node-engine";
import { option } from "./options";
import { sessionPhases } from "./session-phases";
import { ms, summarize } from "./stats";

const runs = Number(option("runs", "10"));
const normalRuns = Number(option("normal-runs", "300"));
const filter = option("filter", "");
const warmCalls = Number(option("warm-calls", "2000"));
const only = option("only", "");
const coldRounds = Number(option("cold-rounds", "200"));

// Fresh sessions only, as before the pool existed.
const sandbox = createAdapterSandbox(nodeEngines, { pool: false });
// Same engine, with the warm pool.
const pooled = createAdapterSandbox(nodeEngines);
const context: ToolCallContext = BENCH_CONTEXT;

async function time(code: string, args: Json = {}) {
  const started = performance.now();
  const report = await sandbox.runAdapterStage({ code, stage: "before", context, arguments: args });
  return { ms: performance.now() - started, report };
}

// Loops whose cost is pure interpreter steps: the basis of the calibration.
const CALIBRATION: Record<string, string> = {
  "tight loop": `for (;;) {}`,
  "counting loop": `let x = 0; for (let i = 0; ; i++) x += i;`,
  "call loop": `const f = (x) => x + 1; let n = 0; for (;;) n = f(n);`,
  "object churn": `for (let i = 0; ; i++) { const o = { i, s: "k" + (i & 7) }; o.s.length; }`,
};

async function main(): Promise<void> {
  const started = performance.now();
  await nodeEngines.get();
  console.log(`engine start-up (compile + instantiate + probe): ${ms(performance.now() - started)} ms`);
  const layout = (await nodeEngines.get()).layout;
  console.log(`layout: ${JSON.stringify(layout)}`);
  console.log(`budget: ${LIMITS.fuelPerInvocation} fuel units, runs per case: ${runs}\n`);

  // Warm up the JIT so the first cases are not penalised.
  for (let i = 0; i < 20; i++) await time(SEED_ADAPTER, { query: "warm" });

  if (only === "cold") return coldStages(coldRounds, context);
  await sessionPhases(300);
  if (only === "phases") return;
  await freshVersusWarm();
  if (only === "warm") return;
  await coldStages(coldRounds, context);

  const normal: number[] = [];
  let normalFuel = 0;
  for (let i = 0; i < normalRuns; i++) {
    const { ms: elapsed, report } = await time(SEED_ADAPTER, { query: "q" + i });
    if (!report.outcome.ok) throw new Error("seed adapter failed: " + JSON.stringify(report.outcome));
    normal.push(elapsed);
    normalFuel = report.fuelUsed;
  }
  const n = summarize(normal);
  console.log(
    `normal adapter call (fresh runtime + context + prelude, seed 000 before): p50 ${ms(n.p50)} ms  p99 ${ms(n.p99)} ms  max ${ms(n.max)} ms  fuel ${normalFuel.toFixed(0)}\n`,
  );

  const header = `${"case".padEnd(44)} ${"code".padEnd(22)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)} ${"fuel".padStart(9)} ${"units/ms".padStart(9)}`;
  console.log("calibration (pure interpreter work, each exhausts the budget)");
  console.log(header);
  const rates: number[] = [];
  for (const [name, body] of Object.entries(CALIBRATION)) {
    const row = await measure(name, beforeCode(`${body}\n${CONTINUE}`));
    rates.push(row.unitsPerMs);
  }
  const nominal = summarize(rates).p50;
  const conservative = Math.min(...rates);
  console.log(
    `\n=> nominal calibration: ${nominal.toFixed(0)} fuel units per ms of CPU (median of the loops above)`,
  );
  console.log(
    `=> conservative: ${conservative.toFixed(0)} units/ms (allocation-heavy loop bodies are slowest per unit)`,
  );
  console.log(
    `=> ${LIMITS.fuelPerInvocation} units ≈ ${ms(LIMITS.fuelPerInvocation / nominal)} ms nominal, ${ms(LIMITS.fuelPerInvocation / conservative)} ms conservative`,
  );
  console.log(
    `=> 5000 ms ≈ ${Math.round(5000 * conservative)} units (conservative) … ${Math.round(5000 * nominal)} units (nominal)\n`,
  );

  console.log("hostile cases");
  console.log(header);
  let worst = { name: "", max: 0 };
  for (const hostile of HOSTILE_CASES) {
    if (filter && !hostile.name.includes(filter)) continue;
    let code = beforeCode(`${hostile.body}\n${CONTINUE}`);
    if (hostile.async) code = code.replace("before(", "async before(");
    const row = await measure(hostile.name, code, hostile.code);
    if (row.max > worst.max) worst = { name: hostile.name, max: row.max };
  }
  console.log(`\n=> worst hostile case: ${worst.name} (max ${ms(worst.max)} ms)`);
}

type StageCall = Parameters<typeof sandbox.runAdapterStage>[0];

function check(label: string, report: Awaited<ReturnType<typeof sandbox.runAdapterStage>>): void {
  if (!report.outcome.ok) throw new Error(`${label} failed: ${JSON.stringify(report.outcome.error)}`);
}

/** Fresh vs warm per-call latency, interleaved call by call (order alternates). */
async function freshVersusWarm(): Promise<void> {
  const adapters = [
    { name: "seed 000 adapter", code: SEED_ADAPTER, bytes: SEED_ADAPTER.length },
    { name: "~2 KB adapter", code: ADAPTER_2KB, bytes: ADAPTER_2KB.length },
  ];
  const stages: { stage: "before" | "after"; input: (i: number) => Partial<StageCall> }[] = [
    { stage: "before", input: (i) => ({ arguments: { query: "The Workers release " + i, limit: 5 } }) },
    {
      stage: "after",
      input: (i) => ({
        arguments: { query: "q" },
        result: {
          items: [{ id: i, title: "t", url: "https://x", summary: "mail a@b.co about it" }],
          total: 1,
        },
      }),
    },
  ];
  console.log(
    `fresh vs pre-warmed single-use sessions: critical path per call, ${warmCalls} calls per row, interleaved`,
  );
  console.log(
    `${"adapter / stage".padEnd(30)} ${"mode".padEnd(6)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)}  fuel`,
  );
  for (const adapter of adapters) {
    for (const { stage, input } of stages) {
      const request = (i: number): StageCall => ({
        code: adapter.code,
        stage,
        context: { ...context, requestId: `req_${i}` },
        ...input(i),
      });
      const fresh: number[] = [];
      const warm: number[] = [];
      const fuel = { fresh: 0, warm: 0 };
      const total = warmCalls + 100;
      for (let i = 0; i < total; i++) {
        // Refill outside the timed span (the gateway does it in ctx.waitUntil).
        await pooled.warmAdapter(adapter.code);
        const order = i % 2 === 0 ? ["fresh", "warm"] : ["warm", "fresh"];
        for (const mode of order) {
          const target = mode === "fresh" ? sandbox : pooled;
          const started = performance.now();
          const report = await target.runAdapterStage(request(i));
          const elapsed = performance.now() - started;
          check(`${adapter.name} ${stage} ${mode}`, report);
          if (i < 100) continue; // warm-up, not counted
          (mode === "fresh" ? fresh : warm).push(elapsed);
          fuel[mode as "fresh" | "warm"] = report.fuelUsed;
        }
      }
      for (const [mode, samples] of [
        ["fresh", fresh],
        ["warm", warm],
      ] as const) {
        const s = summarize(samples);
        console.log(
          `${`${adapter.name} (${adapter.bytes} B) ${stage}`.padEnd(30)} ${mode.padEnd(6)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)} ${ms(s.max).padStart(8)}  ${fuel[mode].toFixed(0)}`,
        );
      }
    }
  }
  const stats = pooled.poolStats();
  console.log(`pool: ${JSON.stringify(stats)}\n`);
}

async function measure(name: string, code: string, expected?: string) {
  const samples: number[] = [];
  let fuel = 0;
  let outcome = "";
  for (let i = 0; i < runs; i++) {
    const { ms: elapsed, report } = await time(code);
    samples.push(elapsed);
    fuel = report.fuelUsed;
    outcome = report.outcome.ok ? "ok" : report.outcome.error.code;
  }
  const s = summarize(samples);
  const unitsPerMs = fuel / s.p50;
  const flag = expected && outcome !== expected ? `  (expected ${expected}!)` : "";
  console.log(
    `${name.slice(0, 44).padEnd(44)} ${outcome.padEnd(22)} ${ms(s.p50).padStart(8)} ${ms(s.p99).padStart(8)} ${ms(s.max).padStart(8)} ${fuel.toFixed(0).padStart(9)} ${unitsPerMs.toFixed(0).padStart(9)}${flag}`,
  );
  return { ...s, unitsPerMs };
}

await main();
