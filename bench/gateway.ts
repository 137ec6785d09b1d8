// Gateway latency bench (Node, tsx), through `wrangler dev` on loopback.
//
//   npx tsx bench/gateway.ts [--requests N] [--warmup N] [--port P] [--pause-ms MS] [--keep-state] [--diag] [--cpu] [--cpu-blocks N]
//
// Starts both Workers and the demo upstream (official-SDK MCP server) with
// scripts/dev-server.mjs, sets up a workspace with the same upstream tool
// registered once per case (services on independent upstream prefixes, see
// gateway-setup.ts), one of them with a ~2 KB adapter running `before` and
// `after`, then measures in ONE run, interleaved (every round sends one
// request per case, in a shuffled order), with one keep-alive connection per
// origin:
//   (0) baseline: the same `POST /mcp/{ws}` with the same body but no API key,
//       answered 401 by the gateway Worker before any D1, Durable Object or
//       upstream work: the dev-server path of (b) and (c), request body included,
//   (a) the upstream called directly: `POST <upstream>/<id>/mcp` tools/call,
//   (b) gateway pass-through: the same tool through `POST /mcp/{ws}`, no hook,
//   (c) gateway with the ~2 KB adapter (`before` + `after`) on the same tool,
//   (r) baseline: the gateway Worker relaying (a)'s request to the upstream
//       with no other work (workers/gateway/bench-relay.ts): (b)'s whole path,
//       including what the dev server adds to a Worker's outbound fetch, so
//       (b) − (r) is the gateway's own cost.
// Percentiles come from N requests per case after a warm-up that is not counted.
// By default each request waits 30 ms first (not timed), as between an
// agent's tool calls, so whatever an isolate does after a response (run
// records are written in `ctx.waitUntil`) is done before the next request and
// each case's latency is its own. `--pause-ms 0` sends them back to back (a
// closed loop): that work then lands on the next request, whatever its case,
// and the "requests since the last hooked call" split shows where. `--diag`
// adds cases that say where time goes (MCP ping, tools/list, and adapters with
// one and two trivial stages).
// For the targets' differences it also prints a 95% interval, bootstrapped
// over rounds (every case is measured once per round), since p99s of this
// noisy machine move by milliseconds from run to run.
// `--cpu` then sends (b) and (c) in blocks of 100 sequential requests (the same
// pause before each), the two taking turns block by block, and prints the CPU
// all workerd processes used per request (bench/cpu.ts: the median over a
// case's blocks, `--cpu-blocks`, default 10): (c) − (b) is a hooked call's CPU,
// its run records and image write-backs included.
// `wrangler dev` itself adds a few ms per request (a no-op Worker took 3.56 ms
// at p50 against 0.36 ms for a no-op Node server here), which is why (0) exists.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ADAPTER_SOURCE,
  MINIMAL_BEFORE_SOURCE,
  MINIMAL_BOTH_SOURCE,
  setUpWorkspace,
  type BenchService,
} from "./gateway-setup";
import { rpcMessage, startDevServer } from "./dev-server";
import { cpuPerRequest } from "./cpu";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { runRounds } from "./rounds";
import { differenceInterval, ms, summarize, type Summary } from "./stats";

const requests = Number(option("requests", "1000"));
const warmup = Number(option("warmup", "150"));
const port = Number(option("port", "8797"));
const keepState = process.argv.includes("--keep-state");
const pauseMs = Number(option("pause-ms", "30"));
const cpu = process.argv.includes("--cpu");
const cpuBlocks = Number(option("cpu-blocks", "10"));
/**
 * Adds diagnostic cases: MCP `ping` (auth + SDK, no D1), `tools/list` (auth +
 * D1 catalog read), and the same tool with the cheapest adapters (one stage,
 * two stages), which split (c) − (b) into running stages at all and the 2 KB
 * adapter's own code.
 */
const diag = process.argv.includes("--diag");

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const toolCall = (id: number, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

type Centre = Pick<Summary, "p50" | "p99">;

function delta(label: string, x: Centre, y: Centre, target?: string): void {
  console.log(
    `${label.padEnd(30)} p50 ${(x.p50 - y.p50).toFixed(2).padStart(6)} ms   p99 ${(x.p99 - y.p99).toFixed(2).padStart(6)} ms${target ? `   (target ${target})` : ""}`,
  );
}

function expectOk(label: string, reply: Reply): void {
  if (reply.status !== 200) throw new Error(`${label}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
  const message = rpcMessage(reply.body);
  if (message.error !== undefined || message.result?.isError)
    throw new Error(`${label}: ${reply.body.slice(0, 300)}`);
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), "rayrun-bench-"));
  const devVarsPath = join(stateDir, ".dev.vars");
  // (r) relays to (a)'s URL; the upstream's port is port + 1 (dev-server.mjs).
  const relayEnv = join(stateDir, "bench.env");
  writeFileSync(relayEnv, `BENCH_RELAY_URL=http://127.0.0.1:${port + 1}/bench-direct/mcp\n`);
  console.log(`starting wrangler dev on 127.0.0.1:${port} (upstream on ${port + 1}), state in ${stateDir} …`);
  const server = await startDevServer({
    port,
    stateDir,
    devVarsPath,
    stdio: (process.env.BENCH_STDIO as "inherit" | undefined) ?? "ignore",
    // wrangler's local trace collector and request log lines are dev tooling production does not
    // have, and each costs CPU per request on this machine (see dev-server.mjs).
    observability: false,
    logLevel: "warn",
    envFiles: [relayEnv],
  });
  try {
    await run(server.url, server.upstreamUrl, server.key);
  } finally {
    server.stop();
    if (!keepState) rmSync(stateDir, { recursive: true, force: true });
  }
}

async function run(url: string, upstreamUrl: string, bootstrap: string): Promise<void> {
  // Setup over the API: the same upstream tool once per case, adapters on the hooked ones.
  const services: BenchService[] = [
    { name: "plain" },
    {
      name: "hooked",
      adapter: {
        source: ADAPTER_SOURCE,
        test: { stage: "before", arguments: { query: "the workers release" } },
      },
    },
  ];
  if (diag) {
    const test = { stage: "before", arguments: { q: "workers release" } };
    services.push(
      { name: "min-before", adapter: { source: MINIMAL_BEFORE_SOURCE, test } },
      { name: "min-both", adapter: { source: MINIMAL_BOTH_SOURCE, test } },
    );
  }
  const ws = await setUpWorkspace(url, upstreamUrl, bootstrap, services);
  const { key, names } = ws;
  console.log(
    `workspace ${ws.uid}: tools ${names.plain} (no hook) and ${names.hooked} (adapter, ${JSON.stringify(ws.compiledBytes.hooked ?? null)} bytes compiled, ${ADAPTER_SOURCE.length} bytes of source)`,
  );

  const gateway = client(url);
  const upstream = client(upstreamUrl);
  const auth = { authorization: `Bearer ${key}`, ...MCP_HEADERS };
  let id = 0;
  /** (b)'s call: the plain tool through the gateway, with or without the key. */
  const passThrough = (requestHeaders: Record<string, string>) =>
    gateway(
      "POST",
      `/mcp/${ws.uid}`,
      toolCall(++id, names.plain ?? "", { q: "workers release" }),
      requestHeaders,
    );
  /** (a)'s call: the upstream's own tool name. */
  const directCall = () => toolCall(++id, "search_release_notes", { q: "workers release" });
  /** A hooked call through the gateway. */
  const hookedCall = (service: string, args: Record<string, unknown>) => () =>
    gateway("POST", `/mcp/${ws.uid}`, toolCall(++id, names[service] ?? "", args), auth);
  const cases: {
    name: string;
    send: () => Promise<Reply>;
    check: (reply: Reply) => void;
    hooked?: boolean;
  }[] = [
    {
      name: "(0) gateway, no key (401)",
      // (b)'s request without its key: the proxy, entry and routing cost of a POST with this body.
      send: () => passThrough(MCP_HEADERS),
      check: (reply) => {
        if (reply.status !== 401) throw new Error(`baseline: HTTP ${reply.status}`);
      },
    },
    {
      name: "(a) upstream direct",
      send: () => upstream("POST", "/bench-direct/mcp", directCall(), MCP_HEADERS),
      check: (reply) => expectOk("upstream", reply),
    },
    {
      name: "(b) gateway, no hook",
      send: () => passThrough(auth),
      check: (reply) => expectOk("pass-through", reply),
    },
    {
      name: "(c) gateway, 2 KB adapter",
      send: hookedCall("hooked", { query: "The Workers release", limit: 5 }),
      check: (reply) => expectOk("adapter", reply),
      hooked: true,
    },
    {
      name: "(r) gateway relay, no work",
      // (a)'s request, sent to the gateway's relay route, which forwards it to (a)'s URL.
      send: () => gateway("POST", "/mcp/_bench/relay", directCall(), MCP_HEADERS),
      check: (reply) => expectOk("relay", reply),
    },
  ];

  if (diag) {
    cases.push(
      {
        // (b) from a client that takes only JSON: its answer can never become an event stream.
        name: "(bj) no hook, JSON-only client",
        send: () => passThrough({ ...auth, accept: "application/json" }),
        check: (reply) => expectOk("pass-through, JSON only", reply),
      },
      {
        name: "(d) gateway MCP ping",
        send: () => gateway("POST", `/mcp/${ws.uid}`, { jsonrpc: "2.0", id: ++id, method: "ping" }, auth),
        check: (reply) => expectOk("ping", reply),
      },
      {
        name: "(e) gateway tools/list",
        send: () =>
          gateway("POST", `/mcp/${ws.uid}`, { jsonrpc: "2.0", id: ++id, method: "tools/list" }, auth),
        check: (reply) => expectOk("tools/list", reply),
      },
      {
        name: "(c1) adapter, 1 trivial stage",
        send: hookedCall("min-before", { q: "workers release" }),
        check: (reply) => expectOk("one-stage adapter", reply),
        hooked: true,
      },
      {
        name: "(c2) adapter, 2 trivial stages",
        send: hookedCall("min-both", { q: "workers release" }),
        check: (reply) => expectOk("two-stage adapter", reply),
        hooked: true,
      },
    );
  }
  // Split by how many requests ago the last hooked call was sent: in a closed
  // loop, work a hooked call leaves for after its response (its run records)
  // lands on the next request or two.
  const DISTANCES = ["1", "2", "≥ 3"] as const;
  const byDistance = DISTANCES.map(() => cases.map(() => [] as number[]));
  let sinceHook = Number.POSITIVE_INFINITY;
  const plainIndex = 2;
  const hookIndex = 3;
  const relayIndex = 4;
  const { samples, seconds } = await runRounds(
    cases,
    { warmup, requests, pauseMs },
    (current, index, elapsed, measured) => {
      if (measured) byDistance[Math.min(sinceHook, DISTANCES.length) - 1]?.[index]?.push(elapsed);
      sinceHook = current.hooked ? 1 : sinceHook + 1;
    },
  );

  console.log(
    `\n${requests} requests per case (+${warmup} warm-up each), interleaved in shuffled rounds, ${pauseMs > 0 ? `${pauseMs} ms pause before each` : "no pause between requests"}, ${seconds.toFixed(0)} s, one keep-alive connection per origin\n`,
  );
  console.log(
    `${"case".padEnd(30)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)}`,
  );
  const summaries = samples.map((s) => summarize(s));
  cases.forEach((c, i) => {
    const s = summaries[i];
    if (!s) return;
    console.log(
      `${c.name.padEnd(30)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)} ${ms(s.max).padStart(8)}`,
    );
  });
  const [zero, a, b, hooked, relay] = summaries as [Summary, Summary, Summary, Summary, Summary];
  console.log(
    `\np50 by requests since the last hooked call (work left after its response lands on the next ones)`,
  );
  console.log(`${"case".padEnd(30)}${DISTANCES.map((d) => `${d.padStart(8)} ${"n".padStart(5)}`).join("")}`);
  cases.forEach((c, i) => {
    const cells = byDistance.map((bucket) => {
      const x = bucket[i] ?? [];
      return `${ms(summarize(x).p50).padStart(8)} ${String(x.length).padStart(5)}`;
    });
    console.log(`${c.name.padEnd(30)}${cells.join("")}`);
  });
  console.log("\nadded latency");
  delta("(b) − (a) gateway over upstream", b, a, "p50 ≤ 1.0 ms, see (b) − (r)");
  delta("(c) − (b) adapter over no hook", hooked, b, "p50 ≤ 0.3 ms, p99 ≤ 1 ms");
  // In a closed loop work left after a hooked call delays the next request or
  // two, whatever their case, and (b) is more often one of them than (c) is;
  // this line compares requests sent at least three requests after the last hooked call.
  const settled = (i: number) => summarize(byDistance[DISTANCES.length - 1]?.[i] ?? []);
  delta("(c) − (b), ≥ 3 after a hook", settled(hookIndex), settled(plainIndex));
  delta("(b) − (0) pass-through over no-op", b, zero);
  delta("(a) − (0) upstream over no-op", a, zero);
  // (b) travels two dev-server hops (client → gateway, gateway → upstream), (a) one; taking
  // (0)'s hop off as well leaves the gateway's own work, plus what wrangler adds to every
  // outbound fetch of a Worker (a dev-only interceptor Worker).
  const own = { p50: b.p50 - a.p50 - zero.p50, p99: b.p99 - a.p99 - zero.p99 };
  console.log(
    `${"(b) − (a) − (0) gateway's own".padEnd(30)} p50 ${own.p50.toFixed(2).padStart(6)} ms   p99 ${own.p99.toFixed(2).padStart(6)} ms   (what remains after both baselines)`,
  );
  delta("(r) − (a) − (0) dev outbound", relay, { p50: a.p50 + zero.p50, p99: a.p99 + zero.p99 });
  delta("(b) − (r) gateway over relay", b, relay, "p50 ≤ 1.0 ms: the gateway's own cost on (b)'s path");
  // How far the targets' differences could move in another run of the same machine.
  console.log("\n95% intervals (paired bootstrap over rounds)");
  for (const [label, x, y, p] of [
    ["(c) − (b) p50", hookIndex, plainIndex, 50],
    ["(c) − (b) p99", hookIndex, plainIndex, 99],
    ["(b) − (r) p50", plainIndex, relayIndex, 50],
  ] as const) {
    const { low, high } = differenceInterval(samples[x] ?? [], samples[y] ?? [], p);
    console.log(`${label.padEnd(30)} ${low.toFixed(2).padStart(6)} … ${high.toFixed(2)} ms`);
  }
  if (diag) {
    // (c1) and (c2) are the last two cases; see MINIMAL_BEFORE_SOURCE.
    const [one, two] = summaries.slice(-2) as [Summary, Summary];
    const jsonOnly = summaries[cases.findIndex((c) => c.name.startsWith("(bj)"))];
    console.log("\nan answer that may become a stream (diag)");
    if (jsonOnly !== undefined) delta("(b) − (bj) SSE-capable over JSON-only", b, jsonOnly);
    console.log("\nwhere (c) − (b) goes (diag)");
    delta("(c1) − (b) running one stage", one, b);
    delta("(c2) − (c1) a second stage", two, one);
    delta("(c) − (c2) 2 KB adapter code", hooked, two);
  }
  if (cpu) {
    const measured = [cases[plainIndex], cases[hookIndex]].filter((c) => c !== undefined);
    const [plainCpu = Number.NaN, hookedCpu = Number.NaN] = await cpuPerRequest(measured, {
      blocks: cpuBlocks,
      size: 100,
      pauseMs,
      settleMs: 500,
    });
    console.log(
      `\nworkerd CPU per request, blocks of 100 sequential requests (median of ${cpuBlocks} blocks per case)`,
    );
    console.log(`(b) gateway, no hook          ${plainCpu.toFixed(2).padStart(6)} ms`);
    console.log(`(c) gateway, 2 KB adapter     ${hookedCpu.toFixed(2).padStart(6)} ms`);
    console.log(
      `(c) − (b) hooked call's CPU   ${(hookedCpu - plainCpu).toFixed(2).padStart(6)} ms   (target ≤ 0.5 ms)`,
    );
  }
}

await main();
