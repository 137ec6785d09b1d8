// Throughput of hooked tool calls against pass-through under load (Node, tsx),
// through `wrangler dev` on loopback.
//
//   npx tsx bench/load.ts [--connections N] [--seconds S] [--phase-seconds S] [--settle-ms MS] [--port P]
//
// Starts both Workers and the demo upstream (scripts/dev-server.mjs), sets up
// the gateway bench's workspace (gateway-setup.ts: the upstream tool once
// without a hook and once behind the ~2 KB adapter), then sends tool calls
// back to back over N keep-alive connections (8 by default) in alternating
// phases — pass-through, hooked, pass-through, … — until each case has run for
// S seconds (30 by default). Alternating keeps both cases under the same
// machine load. Prints requests per second, errors and latency per case, the
// hooked case's throughput as a share of pass-through's, and the CPU time all
// workerd processes (gateway, API, Durable Object, upstream) used per request
// in each case, read from /proc around every phase (Linux only): the hooked
// case's excess is what a hooked call costs in CPU, including anything left
// to run after its response. A phase's CPU is read only after a pause longer
// than the gateway's log batch delay, so the run records a phase defers are
// charged to it and not to the next phase, the other case's. The excess comes
// with a 95 % interval over the phase pairs: phase to phase, the same commit's
// CPU per request moves by more than the target.
import { setTimeout as sleep } from "node:timers/promises";
import { workerdCpuMs } from "./cpu";
import { rpcMessage, withBenchServer, type DevServer } from "./dev-server";
import { ADAPTER_SOURCE, setUpWorkspace } from "./gateway-setup";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { differenceInterval, ms, summarize } from "./stats";

const connections = Number(option("connections", "8"));
const seconds = Number(option("seconds", "30"));
const phaseSeconds = Number(option("phase-seconds", "5"));
const port = Number(option("port", "8817"));
// Longer than the gateway's LOG_BATCH_MS (200 ms): a phase's last log batch is written before its CPU is read.
const settleMs = Number(option("settle-ms", "500"));

const MCP_HEADERS = {
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function failed(reply: Reply): boolean {
  if (reply.status !== 200) return true;
  const message = rpcMessage(reply.body);
  return message.error !== undefined || message.result?.isError === true;
}

interface Tally {
  latencies: number[];
  errors: number;
  seconds: number;
  cpuMs: number;
  /** CPU ms per request of each phase, in phase order (the cases' phases pair up by index). */
  phaseCpu: number[];
}

const emptyTally = (): Tally => ({
  latencies: [],
  errors: 0,
  seconds: 0,
  cpuMs: 0,
  phaseCpu: [],
});

async function phase(
  send: (connection: number, id: number) => Promise<Reply>,
  tally: Tally,
  lengthMs: number,
): Promise<void> {
  const started = performance.now();
  const cpuBefore = workerdCpuMs();
  const end = started + lengthMs;
  let id = 0;
  const requestsBefore = tally.latencies.length;
  await Promise.all(
    Array.from({ length: connections }, async (_, connection) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const reply = await send(connection, ++id);
          if (failed(reply)) tally.errors++;
        } catch {
          tally.errors++;
        }
        tally.latencies.push(performance.now() - t0);
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
  await sleep(settleMs);
  const cpu = workerdCpuMs() - cpuBefore;
  tally.cpuMs += cpu;
  tally.phaseCpu.push(cpu / Math.max(1, tally.latencies.length - requestsBefore));
}

async function run(server: DevServer): Promise<void> {
  const ws = await setUpWorkspace(server.url, server.upstreamUrl, server.key, [
    { name: "plain" },
    {
      name: "hooked",
      adapter: {
        source: ADAPTER_SOURCE,
        test: { stage: "before", arguments: { query: "the workers release" } },
      },
    },
  ]);
  const clients = new Map(Array.from({ length: connections }, (_, i) => [i, client(server.url)]));
  const headers = { authorization: `Bearer ${ws.key}`, ...MCP_HEADERS };
  const call = (tool: string, args: Record<string, unknown>) => (connection: number, id: number) =>
    (clients.get(connection) ?? client(server.url))(
      "POST",
      `/mcp/${ws.uid}`,
      {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: tool, arguments: args },
      },
      headers,
    );
  const cases = [
    {
      name: "pass-through (no hook)",
      send: call(ws.names.plain ?? "", { q: "workers release" }),
    },
    {
      name: "hooked (~2 KB adapter)",
      send: call(ws.names.hooked ?? "", {
        query: "The Workers release",
        limit: 5,
      }),
    },
  ];
  const runs = cases.map((c) => ({ ...c, tally: emptyTally() }));
  // A short warm-up of each case, not counted.
  for (const c of cases) await phase(c.send, emptyTally(), 2000);
  const phases = Math.ceil(seconds / phaseSeconds);
  for (let p = 0; p < phases; p++) {
    for (const r of runs) await phase(r.send, r.tally, phaseSeconds * 1000);
  }
  console.log(
    `\n${connections} connections, back to back, ${phases} alternating phases of ${phaseSeconds} s per case\n`,
  );
  console.log(
    `${"case".padEnd(26)} ${"requests".padStart(9)} ${"per s".padStart(8)} ${"errors".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"CPU ms/req".padStart(11)}`,
  );
  const rows = runs.map(({ name, tally }) => ({
    name,
    tally,
    rate: tally.latencies.length / tally.seconds,
    cpu: tally.cpuMs / Math.max(1, tally.latencies.length),
  }));
  for (const { name, tally, rate, cpu } of rows) {
    const s = summarize(tally.latencies);
    console.log(
      `${name.padEnd(26)} ${String(tally.latencies.length).padStart(9)} ${rate.toFixed(0).padStart(8)} ${String(tally.errors).padStart(7)} ${ms(s.p50).padStart(8)} ${ms(s.p99).padStart(8)} ${cpu.toFixed(2).padStart(11)}`,
    );
  }
  const [plain, hooked] = rows as [(typeof rows)[number], (typeof rows)[number]];
  console.log(
    `\nhooked throughput: ${((hooked.rate / plain.rate) * 100).toFixed(0)} % of pass-through (target ≥ 80 %, 0 errors)`,
  );
  console.log(
    `workerd CPU per hooked call over pass-through: ${(hooked.cpu - plain.cpu).toFixed(2)} ms (target ≤ 0.5 ms)`,
  );
  const pairs = hooked.tally.phaseCpu.map((value, i) => value - (plain.tally.phaseCpu[i] ?? Number.NaN));
  const interval = differenceInterval(hooked.tally.phaseCpu, plain.tally.phaseCpu, 50);
  console.log(
    `  the phases' medians: ${(summarize(hooked.tally.phaseCpu).p50 - summarize(plain.tally.phaseCpu).p50).toFixed(2)} ms apart, 95 % interval ${interval.low.toFixed(2)} … ${interval.high.toFixed(2)} ms (paired bootstrap over phase pairs)`,
  );
  console.log(`  each pair, hooked − pass-through: ${pairs.map((d) => d.toFixed(2)).join(" ")} ms`);
}

console.log(`starting wrangler dev on 127.0.0.1:${port} (upstream on ${port + 1}) …`);
await withBenchServer("load", port, run);
