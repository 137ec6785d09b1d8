// Tool-adapter stages in workerd (Node driver, tsx), through `wrangler dev` on
// loopback with the dev-only Worker in dev/sandbox-bench:
//   npx tsx bench/stages.ts [--rounds N] [--pause-ms MS] [--port P] [--cpu] [--cpu-blocks N]
//
// Each round, in a shuffled order, every case is sent once after a pause (30
// ms by default, as the gateway bench's): an empty request (the baseline), then for each adapter and stage
// one stage, and four stages back to back. A Worker's clock
// stands still during CPU work, so stages are timed from here:
//   one stage            = p50(one) − p50(empty): the first stage after the pause
//                          (its image restored, the call run, what it grew zeroed),
//   each further stage   = (p50(four) − p50(one)) / 3: stages right after another.
// Then four plugins' tool.execute.before and after (bench:llm's (M4) work) as
// sandbox invocations without the runner and through the plugin runner the gateway uses:
//   4 plugins            = p50(case) − p50(empty), eight invocations after the pause,
//   runner over sandbox  = the runner's own cost (timers, host capabilities, records).
// The ~2 KB adapter's stages and the plugins' hooks also run in a bare engine
// (dev/sandbox-bench/bare.ts: the same code in a QuickJS context of the
// package's build with nothing of the sandbox around it), measured the same
// way: the floor this engine sets on this machine, whatever a sandbox adds.
// Without the gateway's upstream and Durable Object round trips, this shows
// what the stages themselves cost in workerd; a sandbox change is measured
// by running it on both commits, alternately. Each request through wrangler's
// proxy still varies by about a millisecond, so the intervals stay wide.
// `--cpu` then sends the empty request and requests of one and of 32 stages of
// the ~2 KB adapter (in the sandbox and in the bare engine) in blocks of 200 back-to-back requests, the cases taking
// turns block by block, and reads the CPU all workerd processes used per
// request (bench/cpu.ts: the median over a case's blocks, `--cpu-blocks`,
// default 10): a stage's CPU in workerd, the first of a request (one − empty,
// within the noise of a whole request) and each further one ((32 − one) / 31,
// which the 31 stages make exact enough to read). A hooked tool call runs two.
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuPerRequest } from "./cpu";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { differenceInterval, ms, shuffled, summarize } from "./stats";

const rounds = Number(option("rounds", "300"));
const pauseMs = Number(option("pause-ms", "30"));
const port = Number(option("port", "8895"));
const cpu = process.argv.includes("--cpu");
const cpuBlocks = Number(option("cpu-blocks", "10"));
const WARM_UP = 30;

const CODES = ["trivial", "2kb"] as const;
const STAGES = ["before", "after"] as const;

/**
 * The dev Worker's route running `n` stages of one adapter back to back: in
 * the sandbox, or (`bare`) the same hook code in a bare engine, the floor.
 */
const stagesPath = (
  code: (typeof CODES)[number],
  stage: (typeof STAGES)[number],
  n: number,
  bare = false,
): string => `/${bare ? "bare" : "stages"}?code=${code}&stage=${stage}&n=${n}`;

async function main(): Promise<void> {
  const server = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      "dev/sandbox-bench/wrangler.jsonc",
      "--port",
      String(port),
      "--inspector-port",
      String(port + 1000),
      "--ip",
      "127.0.0.1",
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
    ],
    { stdio: "ignore", detached: true },
  );
  const stop = () => {
    try {
      if (server.pid) process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  try {
    const send = client(`http://127.0.0.1:${port}`);
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`wrangler dev exited with code ${server.exitCode}`);
      if (i > 480) throw new Error("the bench Worker did not answer within 120 s");
      const ready = await send("GET", "/").catch(() => null);
      if (ready?.status === 200) break;
      await sleep(250);
    }
    await run(send);
    if (cpu) await runCpu(send);
  } finally {
    stop();
  }
}

async function run(send: ReturnType<typeof client>): Promise<void> {
  type Case = { name: string; code?: (typeof CODES)[number]; path: string };
  const cases: Case[] = [{ name: "empty", path: "/" }];
  for (const code of CODES)
    for (const stage of STAGES)
      for (const n of [1, 4])
        cases.push({
          name: `${code} ${stage} ×${n}`,
          code,
          path: stagesPath(code, stage, n),
        });
  for (const stage of STAGES)
    for (const n of [1, 4])
      cases.push({ name: `bare 2kb ${stage} ×${n}`, path: stagesPath("2kb", stage, n, true) });
  cases.push(
    { name: "plugins sandbox", path: "/plugins?via=sandbox" },
    { name: "plugins runner", path: "/plugins?via=runner" },
    { name: "plugins bare", path: "/plugins?via=bare" },
  );
  const samples = new Map(cases.map((c) => [c.name, [] as number[]]));

  for (let round = 0; round < WARM_UP + rounds; round++) {
    for (const c of shuffled(cases)) {
      await sleep(pauseMs);
      const started = performance.now();
      const reply = await send("GET", c.path);
      const elapsed = performance.now() - started;
      if (reply.status !== 200) throw new Error(`${c.name}: HTTP ${reply.status} ${reply.body}`);
      if (round >= WARM_UP) samples.get(c.name)?.push(elapsed);
    }
  }

  const of = (name: string) => samples.get(name) ?? [];
  const empty = summarize(of("empty"));
  console.log(
    `${rounds} rounds (+${WARM_UP} warm-up), every case once per round in a shuffled order, ${pauseMs} ms pause before each`,
  );
  console.log(`empty request p50 ${ms(empty.p50)} ms, p90 ${ms(empty.p90)} ms\n`);
  console.log(
    `${"adapter, stage".padEnd(20)} ${"one stage p50 ms".padStart(17)} ${"95% interval".padStart(16)} ${"p90".padStart(7)} ${"each further p50".padStart(17)}`,
  );
  const stageRow = (label: string, name: string) => {
    const one = of(`${name} ×1`);
    const first = summarize(one);
    const interval = differenceInterval(one, of("empty"), 50);
    const further = (summarize(of(`${name} ×4`)).p50 - first.p50) / 3;
    console.log(
      `${label.padEnd(20)} ${ms(first.p50 - empty.p50).padStart(17)} ${`${ms(interval.low)} … ${ms(interval.high)}`.padStart(16)} ${ms(first.p90 - empty.p90).padStart(7)} ${ms(further).padStart(17)}`,
    );
  };
  for (const code of CODES) for (const stage of STAGES) stageRow(`${code} ${stage}`, `${code} ${stage}`);
  console.log("the same hook code in a bare engine: the floor under a stage (dev/sandbox-bench/bare.ts)");
  for (const stage of STAGES) stageRow(`2kb ${stage}, bare`, `bare 2kb ${stage}`);
  console.log(
    `\n${"4 plugins, before and after".padEnd(36)} ${"p50 ms".padStart(8)} ${"95% interval".padStart(16)}`,
  );
  for (const [label, name, baseline] of [
    ["sandbox invocations, no runner", "plugins sandbox", "empty"],
    ["through the plugin runner", "plugins runner", "empty"],
    ["runner over sandbox", "plugins runner", "plugins sandbox"],
    ["bare engines (the floor)", "plugins bare", "empty"],
    ["sandbox over bare engines", "plugins sandbox", "plugins bare"],
  ] as const) {
    const interval = differenceInterval(of(name), of(baseline), 50);
    const added = summarize(of(name)).p50 - summarize(of(baseline)).p50;
    console.log(
      `${label.padEnd(36)} ${ms(added).padStart(8)} ${`${ms(interval.low)} … ${ms(interval.high)}`.padStart(16)}`,
    );
  }
}

/** CPU per stage in workerd, from blocks of back-to-back requests (`--cpu`). */
async function runCpu(send: ReturnType<typeof client>): Promise<void> {
  const paths = [
    "/",
    ...[false, true].flatMap((bare) =>
      STAGES.flatMap((stage) => [1, 32].map((n) => stagesPath("2kb", stage, n, bare))),
    ),
  ];
  const cases = paths.map((path) => ({
    name: path,
    send: () => send("GET", path),
    check: (reply: Reply) => {
      if (reply.status !== 200) throw new Error(`${path}: HTTP ${reply.status} ${reply.body}`);
    },
  }));
  const perRequest = await cpuPerRequest(cases, { blocks: cpuBlocks, size: 200, pauseMs: 0, settleMs: 300 });
  const of = (path: string) => perRequest[paths.indexOf(path)] ?? Number.NaN;
  const empty = of("/");
  console.log(
    `\nworkerd CPU per request, blocks of 200 back-to-back requests (median of ${cpuBlocks} blocks per case)`,
  );
  console.log(`empty request ${empty.toFixed(2)} ms`);
  console.log(
    `${"~2 KB adapter, stage".padEnd(22)} ${"first stage".padStart(12)} ${"each further".padStart(13)}`,
  );
  for (const bare of [false, true]) {
    for (const stage of STAGES) {
      const one = of(stagesPath("2kb", stage, 1, bare));
      const many = of(stagesPath("2kb", stage, 32, bare));
      console.log(
        `${`${stage}${bare ? ", bare engine" : ""}`.padEnd(22)} ${(one - empty).toFixed(2).padStart(12)} ${((many - one) / 31).toFixed(3).padStart(13)}`,
      );
    }
  }
}

await main();
