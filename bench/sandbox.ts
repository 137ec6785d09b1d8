// Sandbox bench (Node): the same sandbox code the Workers run, with the wasm
// loaded from node_modules.
//
//   npx tsx --import ./bench/raw-import.mjs bench/sandbox.ts [--only calls|hostile|memory|park|fuel|meter|cold|plugins] [--calls N] [--runs N] [--filter text]
//
//  calls    per-call cost on the critical path, interleaved call by call: a
//           stage restored from its code's memory image against the same stage
//           in a runtime of its own (the fallback), and what a new code's first
//           call costs (its image built);
//  fuel     fuel of ordinary stages, and the calibration loops (units per ms);
//  hostile  every hostile case with its outcome, time and fuel;
//  memory   the bytes an isolate holds for images at 1, 32 and 256 codes;
//  park     what awaiting a host call costs a hook (its state set aside and
//           written back) against the same hook awaiting nothing;
//  meter    the same stages on the metered wasm (what runs) and on the
//           package's own build, interleaved: what the native loop meter costs;
//  cold     the first call after a 30 ms sleep against one right after it: the
//           ~2 KB adapter's stage, the same hook code in a bare engine
//           (dev/sandbox-bench/bare.ts: the floor), its image's write-back alone, and bare
//           QuickJS work in an instance of its own (no project code: an
//           `evalCode("1")`, a call of an empty function, a JSON.parse of a
//           stage's input), which shows how much of a cold stage is the
//           machine's caches; a plain JS loop shows the CPU itself is not slower;
//  plugins  four plugins' hooks one invocation after another, in the sandbox
//           against bare engines (bench/sandbox-plugins.ts): the sandbox's
//           own cost per invocation, beside the floor.
//
// Node's clock advances during CPU work (unlike a deployed Worker's), so these
// are CPU times of the sandbox itself on this machine.
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { setTimeout as sleep } from "node:timers/promises";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { LIMITS } from "../shared/limits";
import type { Json } from "../shared/json";
import { createAdapterSandbox } from "../shared/sandbox/adapter";
import { createEngineProvider } from "../shared/sandbox/image/provider";
import { restore } from "../shared/sandbox/image/image";
import { runInvocation } from "../shared/sandbox/invocation";
import type { AdapterStage, StageRequest } from "../shared/sandbox/types";
import {
  ADAPTER_2KB,
  BENCH_CONTEXT,
  beforeCode,
  CONTINUE,
  moduleCode,
  SEED_ADAPTER,
} from "../test/shared/sandbox/code";
import { HOSTILE_CASES, hostileSource } from "../test/shared/sandbox/hostile-cases";
import { bareHook } from "../dev/sandbox-bench/bare";
import { pluginsSection } from "./sandbox-plugins";
import { option } from "./options";
import { meteredWasm, plainWasm } from "./wasm";
import { ms, shuffled, summarize } from "./stats";

const wasm = meteredWasm;

const only = option("only", "");
const callsPerRow = Number(option("calls", "2000"));
const runs = Number(option("runs", "1"));
const filter = option("filter", "");

const images = createEngineProvider(wasm);
const ownRuntimes = createEngineProvider(wasm, { images: false });
const imaged = createAdapterSandbox(images);
const fresh = createAdapterSandbox(ownRuntimes);

type Input = Pick<StageRequest, "arguments" | "result">;
const STAGES: { name: string; code: string; stage: AdapterStage; input: (i: number) => Input }[] = [
  {
    name: "seed before",
    code: SEED_ADAPTER,
    stage: "before",
    input: (i) => ({ arguments: { query: `q${i}` } }),
  },
  {
    name: "seed after",
    code: SEED_ADAPTER,
    stage: "after",
    input: (i) => ({ result: { items: [{ id: i }], total: 1 } }),
  },
  {
    name: "~2 KB before",
    code: ADAPTER_2KB,
    stage: "before",
    input: (i) => ({ arguments: { query: `The Workers release ${i}`, limit: 5 } }),
  },
  {
    name: "~2 KB after",
    code: ADAPTER_2KB,
    stage: "after",
    input: (i) => ({
      arguments: { query: "q" },
      result: { items: [{ id: i, title: "t", url: "https://x", summary: "mail a@b.co about it" }], total: 1 },
    }),
  },
];

function request(code: string, stage: AdapterStage, input: Input, i: number): StageRequest {
  return { code, stage, context: { ...BENCH_CONTEXT, requestId: `req_${i}` }, ...input };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const row = (label: string, samples: number[], extra = "") => {
  const s = summarize(samples);
  console.log(
    `${label.padEnd(34)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)} ${ms(s.max).padStart(8)}  ${extra}`,
  );
};

async function calls(): Promise<void> {
  console.log(`one stage on the critical path, ${callsPerRow} calls per row, interleaved (ms)`);
  console.log(
    `${"stage / mode".padEnd(34)} ${"p50".padStart(8)} ${"p90".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(8)}  fuel`,
  );
  for (const { name, code, stage, input } of STAGES) {
    const samples = { image: [] as number[], own: [] as number[] };
    const fuel = { image: 0, own: 0 };
    for (let i = 0; i < callsPerRow + 100; i++) {
      for (const mode of shuffled(["image", "own"] as const)) {
        const sandbox = mode === "image" ? imaged : fresh;
        const { ms: elapsed, value } = await timed(() =>
          sandbox.runAdapterStage(request(code, stage, input(i), i)),
        );
        if (!value.outcome.ok) throw new Error(`${name} ${mode}: ${JSON.stringify(value.outcome.error)}`);
        if (i < 100) continue; // warm-up
        samples[mode].push(elapsed);
        fuel[mode] = value.fuelUsed;
      }
    }
    row(`${name}, from its image`, samples.image, fuel.image.toFixed(0));
    row(`${name}, a runtime of its own`, samples.own, fuel.own.toFixed(0));
    console.log(
      `${"".padEnd(34)} ratio of p50s (own / image): ${(summarize(samples.own).p50 / summarize(samples.image).p50).toFixed(1)}×`,
    );
  }
  const builds: number[] = [];
  for (let i = 0; i < 200; i++) {
    const code = ADAPTER_2KB.replace("MAX_RESULTS = 25", `MAX_RESULTS = ${25 + i}`);
    builds.push(
      (await timed(() => imaged.runAdapterStage(request(code, "before", { arguments: { query: "q" } }, i))))
        .ms,
    );
  }
  row("~2 KB before, a new code (image built)", builds);
  console.log("");
}

const itemsOf = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: i,
    title: `title ${i}`,
    url: `https://x/${i}`,
    summary: `mail a@b.co about ${i}`,
  }));
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0).padStart(6)} KiB`;

async function fuelSection(): Promise<void> {
  console.log("fuel of ordinary stages (units)");
  for (const { name, code, stage, input } of STAGES) {
    const report = await imaged.runAdapterStage(request(code, stage, input(1), 1));
    console.log(`  ${name.padEnd(20)} ${report.fuelUsed.toFixed(1).padStart(10)}`);
  }
  for (const n of [25, 100, 200, 1000, 2000]) {
    const report = await imaged.runAdapterStage(
      request(
        ADAPTER_2KB,
        "after",
        { arguments: { query: "q" }, result: { items: itemsOf(n), total: n } },
        1,
      ),
    );
    const json = JSON.stringify(itemsOf(n)).length;
    console.log(
      `  ~2 KB after, ${String(n).padStart(4)} items (${(json / 1024).toFixed(0).padStart(4)} KiB): ${report.outcome.ok ? "ok     " : report.outcome.error.code} ${report.fuelUsed.toFixed(0).padStart(8)}`,
    );
  }
  const CALIBRATION: Record<string, string> = {
    "tight loop": `for (;;) {}`,
    "counting loop": `let x = 0; for (let i = 0; ; i++) x += i;`,
    "call loop": `const f = (x) => x + 1; let n = 0; for (;;) n = f(n);`,
    "object churn": `for (let i = 0; ; i++) { const o = { i, s: "k" + (i & 7) }; o.s.length; }`,
  };
  console.log("\ncalibration (pure interpreter work, each exhausts the budget)");
  const rates: number[] = [];
  for (const [name, body] of Object.entries(CALIBRATION)) {
    const samples: number[] = [];
    for (let r = 0; r < 3; r++)
      samples.push(
        (
          await timed(() =>
            imaged.runAdapterStage(request(beforeCode(`${body}\n${CONTINUE}`), "before", {}, r)),
          )
        ).ms,
      );
    const rate = LIMITS.fuelPerInvocation / summarize(samples).p50;
    rates.push(rate);
    console.log(
      `  ${name.padEnd(20)} ${ms(summarize(samples).p50).padStart(8)} ms  ${rate.toFixed(0).padStart(8)} units/ms`,
    );
  }
  const nominal = summarize(rates).p50;
  console.log(
    `=> ${LIMITS.fuelPerInvocation} units ≈ ${ms(LIMITS.fuelPerInvocation / nominal)} ms of ordinary work here\n`,
  );
}

async function hostile(): Promise<void> {
  console.log(`hostile cases (${runs} run${runs === 1 ? "" : "s"} each; time is the slowest run)`);
  console.log(`${"case".padEnd(62)} ${"outcome".padEnd(22)} ${"max ms".padStart(8)} ${"fuel".padStart(9)}`);
  let worst = { name: "", ms: 0 };
  for (const hostileCase of HOSTILE_CASES) {
    if (filter && !hostileCase.name.includes(filter)) continue;
    const code = hostileSource(hostileCase);
    let slowest = 0;
    let outcome = "";
    let fuelUsed = 0;
    let armed = true;
    for (let r = 0; r < runs; r++) {
      const { ms: elapsed, value } = await timed(() =>
        imaged.runAdapterStage({
          code,
          stage: "before",
          context: BENCH_CONTEXT,
          arguments: hostileCase.args ?? {},
        }),
      );
      slowest = Math.max(slowest, elapsed);
      outcome = value.outcome.ok ? "ok" : value.outcome.error.code;
      fuelUsed = value.fuelUsed;
      if (hostileCase.body.includes(`"armed"`)) armed = value.logs.some((entry) => entry.message === "armed");
    }
    const flags = `${outcome === hostileCase.code ? "" : `  (expected ${hostileCase.code}!)`}${armed ? "" : "  (stopped before its loop)"}`;
    console.log(
      `${hostileCase.name.slice(0, 62).padEnd(62)} ${outcome.padEnd(22)} ${ms(slowest).padStart(8)} ${fuelUsed.toFixed(0).padStart(9)}${flags}`,
    );
    if (slowest > worst.ms) worst = { name: hostileCase.name, ms: slowest };
  }
  console.log(`=> worst case: ${worst.name} (${ms(worst.ms)} ms)\n`);
}

async function memory(): Promise<void> {
  console.log("bytes an isolate holds for images, by codes called (each code a distinct ~2 KB adapter)");
  const engines = createEngineProvider(wasm);
  const sandbox = createAdapterSandbox(engines);
  const engine = await engines.get();
  let called = 0;
  for (const target of [1, 32, 256]) {
    for (; called < target; called++) {
      const code = ADAPTER_2KB.replace("MAX_RESULTS = 25", `MAX_RESULTS = ${25 + called}`);
      const report = await sandbox.runAdapterStage(
        request(code, "before", { arguments: { query: "q" } }, called),
      );
      if (!report.outcome.ok) throw new Error(JSON.stringify(report.outcome.error));
    }
    const stats = engine.images?.stats();
    if (!stats) throw new Error("no images");
    console.log(
      `  ${String(target).padStart(3)} codes: code images ${kib(stats.imageBytes)} (${stats.codes} kept), whole copies of those in use ${kib(stats.expandedBytes)}, root and bases ${kib(stats.baseBytes)}; total ${kib(stats.imageBytes + stats.expandedBytes + stats.baseBytes)}; wasm memory ${kib(engine.memory.buffer.byteLength)}`,
    );
  }
  console.log("");
}

async function park(): Promise<void> {
  const extension = {
    name: "bench-host-calls",
    source: `builders.withHost = (args) => [{ input: args[0], fetchValue: (value) => callHost("echo", value) }];`,
  };
  const awaits = moduleCode(
    `return { async transform({ input, fetchValue }) { const reply = await fetchValue(input); return { reply }; } };`,
  );
  const plain = moduleCode(`return { async transform({ input }) { return { reply: input }; } };`);
  const run = (code: string, i: number) =>
    runInvocation(
      images,
      { kind: "bench", code, extensions: [extension], prepare: () => undefined },
      { nowMs: 0, seed: `s${i}`, hostCalls: { echo: async (value: Json) => value } },
      (call) => call.invoke(["transform"], "withHost", [{ i }], "transform's return value"),
    );
  const samples = { awaits: [] as number[], plain: [] as number[] };
  for (let i = 0; i < callsPerRow + 100; i++) {
    for (const mode of shuffled(["awaits", "plain"] as const)) {
      const { ms: elapsed, value } = await timed(() => run(mode === "awaits" ? awaits : plain, i));
      if (!value.outcome.ok) throw new Error(JSON.stringify(value.outcome.error));
      if (i >= 100) samples[mode].push(elapsed);
    }
  }
  console.log(
    `a hook that awaits one host call against the same hook awaiting nothing, ${callsPerRow} calls each, interleaved (ms)`,
  );
  row("awaits a host call (parked, resumed)", samples.awaits);
  row("awaits nothing", samples.plain);
  console.log(
    `=> setting the state aside and writing it back: ${ms(summarize(samples.awaits).p50 - summarize(samples.plain).p50)} ms at p50\n`,
  );
}

const coldStage = (i: number) =>
  imaged.runAdapterStage(request(ADAPTER_2KB, "before", { arguments: { query: `q${i}` } }, i));

// Plain JS, no wasm and a few bytes of data: if the CPU itself were slower after a sleep, this would show it.
const jsLoop = () => {
  let x = 0;
  for (let i = 0; i < 20_000; i++) x = (x * 31 + i) | 0;
  return Promise.resolve(x);
};

async function meter(): Promise<void> {
  const builds = { metered: imaged, plain: createAdapterSandbox(createEngineProvider(plainWasm)) };
  console.log(
    `the native loop meter: each ~2 KB stage on both builds, ${callsPerRow} rounds in a shuffled order (ms)`,
  );
  for (const { name, code, stage, input } of STAGES.filter((s) => s.name.startsWith("~2 KB"))) {
    const samples = { metered: [] as number[], plain: [] as number[] };
    for (let i = 0; i < callsPerRow + 100; i++) {
      for (const build of shuffled(["metered", "plain"] as const)) {
        const { ms: elapsed, value } = await timed(() =>
          builds[build].runAdapterStage(request(code, stage, input(i), i)),
        );
        if (!value.outcome.ok) throw new Error(`${name} ${build}: ${JSON.stringify(value.outcome.error)}`);
        if (i >= 100) samples[build].push(elapsed);
      }
    }
    row(`${name}, package build`, samples.plain);
    row(`${name}, metered build`, samples.metered);
    console.log(
      `${"".padEnd(34)} ratio of p50s (metered / package): ${(summarize(samples.metered).p50 / summarize(samples.plain).p50).toFixed(3)}`,
    );
  }
  console.log("");
}

async function cold(): Promise<void> {
  const engine = await images.get();
  const host = engine.images;
  await coldStage(0);
  const image = host?.find(ADAPTER_2KB, "adapter", Infinity);
  if (host === null || image === undefined || !("delta" in image)) {
    console.log("cold: no memory images on this engine\n");
    return;
  }
  // The bytes alone, past the residency (which skips a write when memory already holds the image):
  // writing an image's own bytes over memory that holds it or a call of it changes nothing it tracks.
  const restoreOnly = () => {
    const state = host.stateOf(image);
    restore(engine.memory, host.layout, state, state.end);
    return Promise.resolve();
  };
  const plainEngine = await newQuickJSWASMModuleFromVariant(releaseSync);
  const bare = plainEngine.newContext();
  const bareAdapter = bareHook(plainEngine, ADAPTER_2KB);
  const bareStage = (i: number) => {
    const { code, stage, ...input } = request(ADAPTER_2KB, "before", { arguments: { query: `q${i}` } }, i);
    bareAdapter.call(["default", stage], JSON.stringify(input));
    return Promise.resolve(code);
  };
  const evalOne = () => {
    bare.unwrapResult(bare.evalCode("1")).dispose();
    return Promise.resolve();
  };
  const empty = bare.unwrapResult(bare.evalCode("(function () {})"));
  const callEmpty = () => {
    bare.unwrapResult(bare.callFunction(empty, bare.undefined)).dispose();
    return Promise.resolve();
  };
  const parse = bare.unwrapResult(bare.evalCode("(function (text) { return JSON.parse(text).arguments; })"));
  const stageInput = JSON.stringify({
    context: BENCH_CONTEXT,
    arguments: { query: "The Workers release 1", limit: 5 },
  });
  const parseInput = () => {
    const text = bare.newString(stageInput);
    bare.unwrapResult(bare.callFunction(parse, bare.undefined, text)).dispose();
    text.dispose();
    return Promise.resolve();
  };
  const cases: Record<string, (i: number) => Promise<unknown>> = {
    "~2 KB before": coldStage,
    "bare ~2 KB before": bareStage,
    "image write-back": restoreOnly,
    'bare evalCode("1")': evalOne,
    "bare empty call": callEmpty,
    "bare JSON.parse": parseInput,
    "JS loop, no wasm": jsLoop,
  };
  const rounds = 200;
  const samples = new Map(
    Object.keys(cases).map((name) => [name, { cold: [] as number[], warm: [] as number[] }]),
  );
  for (let i = 0; i < rounds; i++) {
    for (const name of shuffled(Object.keys(cases))) {
      const work = cases[name];
      const into = samples.get(name);
      if (work === undefined || into === undefined) continue;
      await sleep(30);
      into.cold.push((await timed(() => work(i))).ms);
      into.warm.push((await timed(() => work(i))).ms);
    }
  }
  empty.dispose();
  parse.dispose();
  bareAdapter.dispose();
  bare.dispose();
  console.log(`after a 30 ms sleep against right after, ${rounds} rounds, interleaved (ms)`);
  for (const [name, { cold: first, warm: next }] of samples) {
    row(`${name}, after a sleep`, first);
    row(
      `${name}, right after`,
      next,
      `ratio of p50s ${(summarize(first).p50 / summarize(next).p50).toFixed(1)}×`,
    );
  }
  console.log("");
}

async function main(): Promise<void> {
  const started = performance.now();
  const engine = await images.get();
  console.log(
    `engine start-up (compile + instantiate + probes + root image): ${ms(performance.now() - started)} ms`,
  );
  console.log(`layout: ${JSON.stringify(engine.layout)}`);
  console.log(`budget: ${LIMITS.fuelPerInvocation} units; memory images: ${engine.images !== null}\n`);
  // Warm the JIT so the first rows are not penalised.
  for (let i = 0; i < 50; i++)
    await imaged.runAdapterStage(request(SEED_ADAPTER, "before", { arguments: { query: "w" } }, i));
  const sections: Record<string, () => Promise<void>> = {
    calls,
    fuel: fuelSection,
    hostile,
    memory,
    park,
    meter,
    cold,
    plugins: () => pluginsSection(images, callsPerRow),
  };
  for (const [name, section] of Object.entries(sections)) if (only === "" || only === name) await section();
}

await main();
