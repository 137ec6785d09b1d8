// What request hooks and plugins add to a call (Node, tsx), through `wrangler dev` on loopback.
//
//   npx tsx bench/llm.ts [--requests N] [--warmup N] [--port P] [--pause-ms MS] [--split] [--cpu]
//
// Starts both Workers, the demo upstream and the demo LLM provider with
// scripts/dev-server.mjs and sets up two workspaces over the API, alike but
// for their hooks: "bare" has none; "hooked" has the request hook of
// dev/examples/request-policy.ts as its pre_llm_hook and four plugins whose
// hooks await nothing (chat.params, tool.execute.before and
// tool.execute.after, each returning the whole payload). Then, interleaved in
// shuffled rounds with one keep-alive connection per origin:
//   (0)  the gateway refusing a call without a key (the dev server's own cost),
//   (L0) the OpenAI-compatible proxy of "bare",
//   (L4) the same call through "hooked": the request hook, then four chat.params,
//   (M0) the upstream's `echo` through "bare"'s MCP endpoint,
//   (M4) the same call through "hooked": four tool.execute.before and four after.
// (L4) − (L0) and (M4) − (M0) are what the hooks add. `--split` adds two
// workspaces and cases that tell the LLM path's two parts apart:
//   (L1) the proxy with the request hook alone, (LP) with the four plugins alone.
// `--cpu` then sends each case in blocks of sequential requests, the cases
// taking turns, and reports the CPU all workerd processes used per request
// (bench/cpu.ts): the median over a case's blocks (`--cpu-blocks`, default 6, of 100).
import { rpcMessage, withBenchServer, type DevServer } from "./dev-server";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { cpuPerRequest } from "./cpu";
import { runRounds, type BenchCase } from "./rounds";
import { differenceInterval, ms, summarize } from "./stats";
import { setUpLlmWorkspace as setUp, type LlmWorkspace as Workspace } from "./llm-setup";

const requests = Number(option("requests", "1000"));
const warmup = Number(option("warmup", "100"));
const port = Number(option("port", "8807"));
const pauseMs = Number(option("pause-ms", "30"));
const split = process.argv.includes("--split");
const cpu = process.argv.includes("--cpu");
const cpuBlocks = Number(option("cpu-blocks", "6"));

const MCP_HEADERS = {
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function mcpOk(reply: Reply): void {
  const message = rpcMessage(reply.body);
  if (reply.status !== 200 || message.error !== undefined || message.result?.isError)
    throw new Error(`MCP call: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
}

function llmOk(reply: Reply): void {
  if (reply.status !== 200) throw new Error(`LLM call: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
}

async function run(server: DevServer): Promise<void> {
  const bare = await setUp(server, "bare", { requestHook: false, plugins: false });
  const hooked = await setUp(server, "hooked", { requestHook: true, plugins: true });
  console.log(`workspaces: bare ${bare.uid}, hooked ${hooked.uid} (request hook + 4 plugins)`);
  const gateway = client(server.url);
  let id = 0;
  const chat = (ws: Workspace) => () =>
    gateway(
      "POST",
      `/llm/${ws.uid}/openai/v1/chat/completions`,
      {
        model: "demo",
        temperature: 0.7,
        messages: [{ role: "user", content: "hello" }],
        tools: [
          {
            type: "function",
            function: { name: "fs_read", parameters: { type: "object" } },
          },
          {
            type: "function",
            function: { name: "shell_exec", parameters: { type: "object" } },
          },
        ],
      },
      { authorization: `Bearer ${ws.key}` },
    );
  const echo = (ws: Workspace) => () =>
    gateway(
      "POST",
      `/mcp/${ws.uid}`,
      {
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "hello" } },
      },
      { authorization: `Bearer ${ws.key}`, ...MCP_HEADERS },
    );
  const cases: BenchCase<Reply>[] = [
    {
      name: "(0) gateway, no key (401)",
      send: () => gateway("POST", `/mcp/${bare.uid}`, { jsonrpc: "2.0", id: 1, method: "ping" }, MCP_HEADERS),
      check: (reply) => {
        if (reply.status !== 401) throw new Error(`baseline: HTTP ${reply.status}`);
      },
    },
    { name: "(L0) LLM proxy, bare", send: chat(bare), check: llmOk },
    {
      name: "(L4) LLM proxy, hook + 4 plugins",
      send: chat(hooked),
      check: llmOk,
    },
    { name: "(M0) MCP echo, bare", send: echo(bare), check: mcpOk },
    { name: "(M4) MCP echo, 4 plugins", send: echo(hooked), check: mcpOk },
  ];
  const differences: [string, number, number][] = [
    ["(L4) − (L0) request hook + 4 plugins", 2, 1],
    ["(M4) − (M0) 4 plugins on a tool call", 4, 3],
  ];
  if (split) {
    const hookOnly = await setUp(server, "hook", { requestHook: true, plugins: false });
    const pluginsOnly = await setUp(server, "plugins", { requestHook: false, plugins: true });
    cases.push(
      { name: "(L1) LLM proxy, request hook", send: chat(hookOnly), check: llmOk },
      { name: "(LP) LLM proxy, 4 plugins", send: chat(pluginsOnly), check: llmOk },
    );
    differences.push(["(L1) − (L0) request hook", 5, 1], ["(LP) − (L0) 4 plugins' chat.params", 6, 1]);
  }
  const { samples } = await runRounds(cases, { warmup, requests, pauseMs });
  console.log(
    `\n${requests} requests per case (+${warmup} warm-up), interleaved in shuffled rounds, ${pauseMs} ms pause before each\n`,
  );
  const cpuMs = cpu
    ? await cpuPerRequest(cases, { blocks: cpuBlocks, size: 100, pauseMs, settleMs: 500 })
    : null;
  const cpuHeader = cpuMs === null ? "" : ` ${"CPU ms/req".padStart(11)}`;
  console.log(
    `${"case".padEnd(36)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)}${cpuHeader}`,
  );
  cases.forEach((c, i) => {
    const s = summarize(samples[i] ?? []);
    const cpuCell = cpuMs === null ? "" : ` ${(cpuMs[i] ?? Number.NaN).toFixed(2).padStart(11)}`;
    console.log(
      `${c.name.padEnd(36)} ${ms(s.p50).padStart(8)} ${ms(s.p90).padStart(8)} ${ms(s.p99).padStart(8)}${cpuCell}`,
    );
  });
  console.log("\nadded by the hooks (95% interval of the p50 difference, paired bootstrap over rounds)");
  for (const [index, [label, x, y]] of differences.entries()) {
    const a = summarize(samples[x] ?? []);
    const b = summarize(samples[y] ?? []);
    const { low, high } = differenceInterval(samples[x] ?? [], samples[y] ?? [], 50);
    console.log(
      `${label.padEnd(40)} p50 ${(a.p50 - b.p50).toFixed(2).padStart(6)} ms [${low.toFixed(2)} … ${high.toFixed(2)}]   p99 ${(a.p99 - b.p99).toFixed(2).padStart(6)} ms${cpuMs === null ? "" : `   CPU ${((cpuMs[x] ?? 0) - (cpuMs[y] ?? 0)).toFixed(2)} ms`}${index < 2 ? "   (target p50 ≤ 1 ms)" : ""}`,
    );
  }
}

console.log(`starting wrangler dev on 127.0.0.1:${port} (upstream ${port + 1}, provider ${port + 2}) …`);
await withBenchServer("llm", port, run);
