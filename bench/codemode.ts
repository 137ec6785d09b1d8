// Code Mode's cost per tool call against Direct Mode (Node, tsx), through `wrangler dev` on loopback.
//
//   npx tsx bench/codemode.ts [--requests N] [--warmup N] [--port P] [--pause-ms MS]
//
// Starts both Workers and the demo upstream with scripts/dev-server.mjs (no trace collector, no
// request log lines), sets up a workspace whose `search_release_notes` has the gateway bench's
// ~2 KB adapter (`before` + `after`, gateway-setup.ts), then measures in ONE run, interleaved in
// shuffled rounds, one keep-alive connection, `--pause-ms` (not timed) before each case:
//   (0)  the gateway refusing the same POST without a key: the dev server's own cost per request,
//   (d1) one Direct Mode `tools/call` of the hooked tool,
//   (d3) three of them back to back, timed together (three HTTP round trips),
//   (x0) an `execute` that calls no tool: the execution's own fixed cost (sandbox, one request),
//   (x1) an `execute` making one call of the hooked tool,
//   (x3) an `execute` making three, each awaited before the next (one HTTP round trip).
// An execute is one request where Direct Mode is three, so there is no single honest "overhead";
// it prints three, each with a 95% interval bootstrapped over rounds:
//   (x3 − d3) / 3        what an agent pays per call for the same three calls, requests included,
//   (x3 − 3·d1) / 3      the same against three single-call timings,
//   (x3 − x1) / 2 − (d1 − (0))
//                        the strict one: an extra call inside an execution against a Direct Mode
//                        call's own gateway work (its request's dev-server cost taken off), so the
//                        round trips an execute saves are not counted in its favour.
import { executeCode, expectResult, FOUND, QUERIES, totals } from "./codemode-calls";
import { rpcMessage, withBenchServer, type DevServer } from "./dev-server";
import { ADAPTER_SOURCE, setUpWorkspace } from "./gateway-setup";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { runRounds, type BenchCase } from "./rounds";
import { ms, pairedInterval, percentile, summarize } from "./stats";

const requests = Number(option("requests", "500"));
const warmup = Number(option("warmup", "50"));
const port = Number(option("port", "8817"));
const pauseMs = Number(option("pause-ms", "30"));

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

/** A Direct Mode call's answer: the adapter's result, with its `total`. */
function checkDirect(reply: Reply, label: string): void {
  const message = rpcMessage(reply.body);
  const total = (message.result?.structuredContent as { total?: unknown } | undefined)?.total;
  if (reply.status !== 200 || message.result?.isError || total !== FOUND)
    throw new Error(`${label}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
}

const percentileOf = (values: readonly number[], p: number): number =>
  percentile(
    values.toSorted((a, b) => a - b),
    p,
  );

async function run(server: DevServer): Promise<void> {
  const ws = await setUpWorkspace(server.url, server.upstreamUrl, server.key, [
    {
      name: "hooked",
      adapter: {
        source: ADAPTER_SOURCE,
        test: { stage: "before", arguments: { query: "the workers release" } },
      },
    },
  ]);
  const tool = ws.names.hooked ?? "";
  console.log(
    `workspace ${ws.uid}: ${tool} with the ~2 KB adapter (${ADAPTER_SOURCE.length} bytes of source)`,
  );
  const gateway = client(server.url);
  const auth = { authorization: `Bearer ${ws.key}`, ...MCP_HEADERS };
  let id = 0;
  const rpc = (path: string, name: string, args: unknown, headers: Record<string, string> = auth) =>
    gateway(
      "POST",
      path,
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } },
      headers,
    );
  const direct = `/mcp/${ws.uid}`;
  const code = `/mcp/${ws.uid}?mode=code`;
  const directCalls = async (calls: number): Promise<Reply> => {
    let last: Reply = { status: 0, body: "" };
    for (const args of QUERIES.slice(0, calls)) {
      last = await rpc(direct, tool, args);
      checkDirect(last, "direct");
    }
    return last;
  };
  const execute = (calls: number) => () => rpc(code, "execute", { code: executeCode(tool, calls) });
  const cases: BenchCase<Reply>[] = [
    {
      name: "(0) gateway, no key (401)",
      send: () => rpc(direct, tool, QUERIES[0], MCP_HEADERS),
      check: (reply) => {
        if (reply.status !== 401) throw new Error(`baseline: HTTP ${reply.status}`);
      },
    },
    { name: "(d1) direct, 1 call", send: () => directCalls(1), check: () => undefined },
    { name: "(d3) direct, 3 calls", send: () => directCalls(3), check: () => undefined },
    { name: "(x0) execute, no call", send: execute(0), check: (r) => expectResult("x0", r, totals(0)) },
    { name: "(x1) execute, 1 call", send: execute(1), check: (r) => expectResult("x1", r, totals(1)) },
    { name: "(x3) execute, 3 calls", send: execute(3), check: (r) => expectResult("x3", r, totals(3)) },
  ];
  const { samples, seconds } = await runRounds(cases, { warmup, requests, pauseMs });
  console.log(
    `\n${requests} rounds (+${warmup} warm-up), every case once per round in a shuffled order, ${pauseMs} ms pause before each, ${seconds.toFixed(0)} s\n`,
  );
  console.log(`${"case".padEnd(28)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)}`);
  cases.forEach((c, i) => {
    const s = summarize(samples[i] ?? []);
    console.log(
      `${c.name.padEnd(28)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)}`,
    );
  });

  const of = (i: number): number[] => samples[i] ?? [];
  const [zero, d1, d3, x0, x1, x3] = [of(0), of(1), of(2), of(3), of(4), of(5)];
  const overheads: {
    label: string;
    inputs: (readonly number[])[];
    combine: (v: readonly number[]) => number;
  }[] = [
    { label: "(x3 − d3) / 3", inputs: [x3, d3], combine: ([x = 0, d = 0]) => (x - d) / 3 },
    { label: "(x3 − 3·d1) / 3", inputs: [x3, d1], combine: ([x = 0, d = 0]) => (x - 3 * d) / 3 },
    {
      label: "(x3 − x1) / 2 − (d1 − (0))",
      inputs: [x3, x1, d1, zero],
      combine: ([x = 0, y = 0, d = 0, z = 0]) => (x - y) / 2 - (d - z),
    },
  ];
  console.log("\noverhead per inner call over a Direct Mode hooked call (target: within 0.2 ms)");
  console.log("95% intervals by the paired bootstrap over rounds");
  for (const { label, inputs, combine } of overheads) {
    const at = (p: number) => combine(inputs.map((s) => percentileOf(s, p)));
    const cells = [50, 90, 99].map((p) => {
      const { low, high } = pairedInterval(inputs, combine, p);
      return `p${p} ${at(p).toFixed(2).padStart(6)} [${low.toFixed(2)} … ${high.toFixed(2)}]`;
    });
    console.log(`${label.padEnd(28)} ${cells.join("   ")}`);
  }
  const fixed = summarize(x0).p50 - summarize(zero).p50;
  console.log(`\nan execution's fixed cost, (x0) − (0) at p50: ${fixed.toFixed(2)} ms`);
}

console.log(`starting wrangler dev on 127.0.0.1:${port} (upstream on ${port + 1}) …`);
await withBenchServer("codemode", port, run);
