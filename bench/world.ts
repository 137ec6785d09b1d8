// The hot paths at a distance from the workspace's home (Node, tsx), through `wrangler dev` on loopback.
//
//   npx tsx bench/world.ts [--samples N] [--rtts 0,50,150] [--connections N] [--cold-colos N]
//                          [--pause-ms MS] [--warmup ROUNDS] [--rpc-seconds S] [--rpc-connections 1,4,8]
//                          [--count-calls N] [--write-rounds N] [--port P] [--keep-state]
//
// In production a workspace's WorkspaceObject (and D1's primary, and R2) sit in
// one place and agents call the gateway from everywhere, so every await on them
// on a call's path is a round trip the agent waits for. For each RTT in --rtts
// this runs one dev server whose every WorkspaceObject, D1 and R2 await first
// waits that long (SIM_HOME_RTT_MS, docs/architecture.md "Distance, simulated"),
// with the gateway as 3 colos (separate isolates) plus --cold-colos (3) more.
// The servers run at the same time, on ports P, P + 3, P + 6 (8870 on), and
// every phase sends to all of them side by side: one server after another,
// this shared machine's load moved the same path's p50 by more than 100 ms
// between runs, which swamps the few ms a hot path's trips are about. Three
// workspaces are set up over the API once, against the first server, with the
// other benches' setup (gateway-setup.ts, llm-setup.ts); the other servers get
// a copy of its state (a far home makes a set-up take minutes).
//
// 1. Latency of every path: --connections keep-alive connections (8) per
//    server, on its 3 colos in turn, each sending rounds of one request per
//    path and server in a shuffled order, --pause-ms (not timed) before each,
//    until every path has --samples (300) per RTT. Paths: tools/call of an
//    unhooked tool, of a tool with gateway-setup.ts's ~2 KB adapter, of a tool
//    in a workspace with four plugins (tool.execute.before/after), of a plugin
//    tool, and the approved repeat of a call that needed approval (the first
//    call and the approval through the API are not timed); tools/list; the
//    OpenAI and the Anthropic LLM routes, each through the request hook and
//    four plugins' chat.params; a Code Mode `execute` making three tool calls;
//    and, as a baseline, a call without a key, refused before any home await.
//    Beside them, one connection per cold colo times a cold isolate's first
//    tools/call of the adapter's tool: `POST /__sim/forget` (not timed) empties
//    the colo's caches, then the call. Cold calls get colos of their own
//    because forgetting a colo the other paths use would make their next calls
//    cold too.
// 2. WorkspaceObject RPCs per 1,000 calls: every hot path back to back over
//    each of --rpc-connections (1, 4, 8) for --rpc-seconds (8), from the
//    /__sim/stats counters of the api Worker and every gateway colo, read
//    before and after. A call is one request to /mcp or /llm (an approved
//    repeat's first call counts). Leases are renewed per isolate and
//    workspace, not per call, so the RPCs per second should stay flat while
//    the calls per second grow.
// 3. At RTT 0 only: what one call of each path sends home (WorkspaceObject
//    RPCs, D1 queries, R2 operations), from the same counters, calls sent one
//    at a time on one colo. Run records are written after the response
//    (batched), and their D1 writes are counted with the calls that made them.
//    Beside them, rounds per call: trips begun while none was under way, so
//    trips that overlap count once (counted, not timed; shared/sim/distance.ts).
// 4. Writes (world-writes.ts): --write-rounds (4) times, a deploy to the
//    shadow channel, dropping it, and revoking a key, each timed right after a
//    call on every colo took a lease, against lease + margin + 2 RTT.
//
// Home trips per call at an RTT are (p50 at RTT − p50 at 0) / RTT, with the 95 %
// interval of stats.ts's paired bootstrap: the i-th samples of two RTTs were
// taken by the same connection in the same round.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { executeCode, expectResult, totals } from "./codemode-calls";
import { ADAPTER_SOURCE, api, setUpWorkspace, type BenchWorkspace } from "./gateway-setup";
import { client, type Reply } from "./http-client";
import { deployFile, PROVIDER_SECRET, setUpLlmWorkspace, type LlmWorkspace } from "./llm-setup";
import { option } from "./options";
import {
  addCounts,
  forgetColo,
  NO_COUNTS,
  readIsolates,
  sentHome,
  SIM_COLO_HEADER,
  startSimServer,
  type HomeCounts,
  type SimServer,
} from "./sim-server";
import { differenceInterval, percentile, shuffled } from "./stats";
import { measureWrites, writeRows, type WriteTimes } from "./world-writes";

const samplesWanted = Number(option("samples", "300"));
const rtts = option("rtts", "0,50,150").split(",").map(Number);
const basePort = Number(option("port", "8870"));
const connections = Number(option("connections", "8"));
const coldColos = Number(option("cold-colos", "3"));
const pauseMs = Number(option("pause-ms", "20"));
const warmupRounds = Number(option("warmup", "1"));
const rpcSeconds = Number(option("rpc-seconds", "8"));
const rpcConnections = option("rpc-connections", "1,4,8").split(",").map(Number);
const countCalls = Number(option("count-calls", "20"));
const writeRounds = Number(option("write-rounds", "4"));
const keepState = process.argv.includes("--keep-state");

/** The colos the warm paths' connections take turns on. */
const WARM_COLOS = 3;
/** Longer than the gateway's LOG_BATCH_MS (200 ms): the run records a call left are written by then. */
const SETTLE_MS = 500;
/** Calls of each path that needs un-timed work first (approval, forget) in the per-call counts. */
const PREPARED_COUNT_CALLS = 6;

if (rtts[0] !== 0 || rtts.some((rtt) => !Number.isFinite(rtt) || rtt < 0))
  throw new RangeError("--rtts must start with 0 (the baseline) and list milliseconds ≥ 0");

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

/** A keep-alive connection to the dev server, and the gateway colo its warm calls go to. */
interface Connection {
  colo: number;
  send: ReturnType<typeof client>;
}

/** The count window around a prepared path's timed request (the per-call counts); absent otherwise. */
interface Around {
  before: () => Promise<void>;
  after: () => Promise<void>;
}

interface WorldCase {
  name: string;
  /** Requests to /mcp or /llm one run sends, un-timed ones included. */
  calls: number;
  /** Whether it runs un-timed requests first, which the per-call counts must leave out. */
  prepared: boolean;
  /**
   * A hot path (the RPC phase sends it), the cold isolate's first call (its
   * forget drops the lease on purpose), or the baseline: a refusal before any
   * home await, whose "trips" are what the sites differ by without one.
   */
  kind: "hot" | "cold" | "baseline";
  /** Runs the path once; answers the timed request's milliseconds, or throws on a wrong answer. */
  run: (conn: Connection, around?: Around) => Promise<number>;
}

interface ToolMessage {
  result?: {
    isError?: boolean;
    content?: { type: string; text?: string }[];
    structuredContent?: unknown;
    _meta?: Record<string, unknown>;
  };
  error?: unknown;
}

function toolMessage(reply: Reply): ToolMessage {
  const text = reply.body.startsWith("{") ? reply.body : (/^data: (.*)$/m.exec(reply.body)?.[1] ?? "{}");
  return JSON.parse(text) as ToolMessage;
}

function expectOk(label: string, reply: Reply): void {
  const message = toolMessage(reply);
  if (reply.status !== 200 || message.error !== undefined || message.result?.isError)
    throw new Error(`${label}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
}

function expectStatus(label: string, reply: Reply): void {
  if (reply.status !== 200) throw new Error(`${label}: HTTP ${reply.status}: ${reply.body.slice(0, 300)}`);
}

/** A refusal's approval id (`_meta["rayrun/error"].approvalId`). */
function approvalIdOf(reply: Reply): string {
  const error = toolMessage(reply).result?._meta?.["rayrun/error"];
  const id = typeof error === "object" && error !== null ? Reflect.get(error, "approvalId") : undefined;
  if (typeof id !== "string") throw new Error(`expected approval_required: ${reply.body.slice(0, 300)}`);
  return id;
}

/** Times `send` inside `around`'s window; the answer is checked after the window closes. */
async function timed(send: () => Promise<Reply>, check: (reply: Reply) => void, around?: Around) {
  await around?.before();
  const started = performance.now();
  const reply = await send();
  const elapsed = performance.now() - started;
  await around?.after();
  check(reply);
  return elapsed;
}

/** Gateway colos a cold call may take, one call at a time each. */
class ColdColos {
  private readonly free: number[];
  private readonly waiting: ((colo: number) => void)[] = [];

  constructor(colos: readonly number[]) {
    this.free = [...colos];
  }

  acquire(): Promise<number> {
    const colo = this.free.pop();
    if (colo !== undefined) return Promise.resolve(colo);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(colo: number): void {
    const next = this.waiting.shift();
    if (next === undefined) this.free.push(colo);
    else next(colo);
  }
}

/** An approval on every call: the approved repeat is what the bench times. */
const APPROVAL_SOURCE = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: args }) => ({ action: "approval", arguments: args, reason: "Every search is approved first." }),
});
`;

/**
 * The demo's plugin tool. Deploying needs a completed test run, which `tool`
 * (it returns functions) cannot give, so an observing tool.execute.before is
 * added, as scripts/seed-demo.mjs does.
 */
const wordCountSource = (): string =>
  readFileSync(new URL("../dev/examples/plugins/word-count.ts", import.meta.url), "utf8").replace(
    "export default {",
    'export default {\n  "tool.execute.before": () => undefined,',
  );

interface World {
  /** Tools without plugins: unhooked, with the ~2 KB adapter, asking for approval; Code Mode; tools/list. */
  tools: BenchWorkspace;
  /** The request hook and four plugins: the plugins' tool call and both LLM routes. */
  plugged: LlmWorkspace;
  /** Only the plugin tool `word_count`. */
  pluginTool: BenchWorkspace;
}

/** The request hook and four plugins (llm-setup.ts), and the same demo provider on the Anthropic route. */
async function setUpPlugged(server: SimServer): Promise<LlmWorkspace> {
  const plugged = await setUpLlmWorkspace(server, "plugged", { requestHook: true, plugins: true });
  const base = `/v1/workspaces/${plugged.uid}`;
  const { data, headers } = await api(server.url, plugged.key, "GET", `${base}/config`);
  const config = data.config as { providers?: Record<string, unknown> };
  await api(
    server.url,
    plugged.key,
    "PUT",
    `${base}/config`,
    {
      ...config,
      providers: {
        ...config.providers,
        anthropic: { baseUrl: `${server.providerUrl}/bench-plugged`, apiKeySecret: PROVIDER_SECRET },
      },
    },
    { "if-match": headers.get("etag") ?? "" },
  );
  return plugged;
}

async function setUpPluginTool(server: SimServer): Promise<BenchWorkspace> {
  const pluginTool = await setUpWorkspace(server.url, server.upstreamUrl, server.key, []);
  await deployFile(
    server.url,
    pluginTool.key,
    `/v1/workspaces/${pluginTool.uid}`,
    "plugins/word-count.ts",
    wordCountSource(),
    { hook: "tool.execute.before", input: { toolID: "echo", args: { text: "hi" } } },
  );
  return pluginTool;
}

async function setUpWorld(server: SimServer): Promise<World> {
  const test = { stage: "before", arguments: { query: "the workers release" } };
  const approvalTest = { stage: "before", arguments: { q: "x" } };
  const [tools, plugged, pluginTool] = await Promise.all([
    setUpWorkspace(server.url, server.upstreamUrl, server.key, [
      { name: "plain" },
      { name: "hooked", adapter: { source: ADAPTER_SOURCE, test } },
      { name: "approval", adapter: { source: APPROVAL_SOURCE, test: approvalTest } },
    ]),
    setUpPlugged(server),
    setUpPluginTool(server),
  ]);
  return { tools, plugged, pluginTool };
}

let rpcId = 0;
const toolCall = (name: string, args: unknown, meta?: Record<string, string>) => ({
  jsonrpc: "2.0",
  id: ++rpcId,
  method: "tools/call",
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

/** An MCP request's headers: the key, the protocol's, and the gateway colo it goes to. */
const mcp = (key: string, colo: number) => ({
  authorization: `Bearer ${key}`,
  ...MCP_HEADERS,
  [SIM_COLO_HEADER]: String(colo),
});

/** A cold isolate's first call of `tool`: a cold colo's caches emptied (not timed), then the call. */
function coldCall(
  server: SimServer,
  world: World,
  cold: ColdColos,
  name: string,
  tool: string,
  args: unknown,
): WorldCase {
  const { tools } = world;
  return {
    name,
    calls: 1,
    prepared: true,
    kind: "cold",
    run: async (conn, around) => {
      const colo = await cold.acquire();
      try {
        await forgetColo(server.url, colo);
        return await timed(
          () => conn.send("POST", `/mcp/${tools.uid}`, toolCall(tool, args), mcp(tools.key, colo)),
          (reply) => expectOk(name, reply),
          around,
        );
      } finally {
        cold.release(colo);
      }
    },
  };
}

/** An LLM proxy call through the request hook and four plugins, on the connection's colo. */
const llmCall = (label: string, path: string, body: unknown, headers: Record<string, string>): WorldCase => ({
  name: `${label}, hook + 4 plugins`,
  calls: 1,
  prepared: false,
  kind: "hot",
  run: (conn) =>
    timed(
      () => conn.send("POST", path, body, { ...headers, [SIM_COLO_HEADER]: String(conn.colo) }),
      (reply) => expectStatus(label, reply),
    ),
});

/** A tools/call that must succeed, on the connection's colo. */
const direct = (
  name: string,
  ws: { uid: string; key: string },
  tool: string,
  args: unknown,
  check: (reply: Reply) => void = (reply) => expectOk(name, reply),
): WorldCase => ({
  name,
  calls: 1,
  prepared: false,
  kind: "hot",
  run: (conn) =>
    timed(() => conn.send("POST", `/mcp/${ws.uid}`, toolCall(tool, args), mcp(ws.key, conn.colo)), check),
});
function worldCases(server: SimServer, world: World, cold: ColdColos): WorldCase[] {
  const { tools, plugged, pluginTool } = world;
  const hooked = tools.names.hooked ?? "";
  const hookedArgs = { query: "The Workers release", limit: 5 };
  const approvalTool = tools.names.approval ?? "";
  const chatBody = {
    model: "demo",
    temperature: 0.7,
    messages: [{ role: "user", content: "hello" }],
    tools: [
      { type: "function", function: { name: "fs_read", parameters: { type: "object" } } },
      { type: "function", function: { name: "shell_exec", parameters: { type: "object" } } },
    ],
  };
  const messagesBody = {
    model: "demo",
    max_tokens: 64,
    temperature: 0.7,
    messages: [{ role: "user", content: "hello" }],
    tools: [
      { name: "fs_read", input_schema: { type: "object" } },
      { name: "shell_exec", input_schema: { type: "object" } },
    ],
  };
  return [
    {
      name: "baseline: no key (401)",
      calls: 1,
      prepared: false,
      kind: "baseline",
      run: (conn) =>
        timed(
          () =>
            conn.send("POST", `/mcp/${tools.uid}`, toolCall(hooked, hookedArgs), {
              ...MCP_HEADERS,
              [SIM_COLO_HEADER]: String(conn.colo),
            }),
          (reply) => {
            if (reply.status !== 401) throw new Error(`baseline: HTTP ${reply.status}`);
          },
        ),
    },
    direct("tools/call, unhooked tool", tools, tools.names.plain ?? "", { q: "workers release" }),
    direct("tools/call, ~2 KB adapter", tools, hooked, hookedArgs),
    direct("tools/call, 4 plugins", plugged, "echo", { text: "hello" }),
    direct("tools/call, plugin tool", pluginTool, "word_count", { text: "one two three" }, (reply) => {
      expectOk("plugin tool", reply);
      const text = toolMessage(reply).result?.content?.[0]?.text;
      if (text !== "3 words") throw new Error(`plugin tool: ${reply.body.slice(0, 300)}`);
    }),
    {
      name: "tools/call, approved repeat",
      calls: 2,
      prepared: true,
      kind: "hot",
      run: async (conn, around) => {
        const path = `/mcp/${tools.uid}`;
        const args = { q: "needs approval" };
        const asked = await conn.send("POST", path, toolCall(approvalTool, args), mcp(tools.key, conn.colo));
        const id = approvalIdOf(asked);
        await api(server.url, tools.key, "POST", `/v1/workspaces/${tools.uid}/approvals/${id}/approve`);
        return timed(
          () =>
            conn.send(
              "POST",
              path,
              toolCall(approvalTool, args, { "rayrun/approvalId": id }),
              mcp(tools.key, conn.colo),
            ),
          (reply) => expectOk("approved repeat", reply),
          around,
        );
      },
    },
    {
      name: "tools/list",
      calls: 1,
      prepared: false,
      kind: "hot",
      run: (conn) =>
        timed(
          () =>
            conn.send(
              "POST",
              `/mcp/${tools.uid}`,
              { jsonrpc: "2.0", id: ++rpcId, method: "tools/list" },
              mcp(tools.key, conn.colo),
            ),
          (reply) => expectStatus("tools/list", reply),
        ),
    },
    llmCall("LLM OpenAI", `/llm/${plugged.uid}/openai/v1/chat/completions`, chatBody, {
      authorization: `Bearer ${plugged.key}`,
    }),
    llmCall("LLM Anthropic", `/llm/${plugged.uid}/anthropic/v1/messages`, messagesBody, {
      "x-api-key": plugged.key,
      "anthropic-version": "2023-06-01",
    }),
    {
      name: "Code Mode execute, 3 calls",
      calls: 1,
      prepared: false,
      kind: "hot",
      run: (conn) =>
        timed(
          () =>
            conn.send(
              "POST",
              `/mcp/${tools.uid}?mode=code`,
              toolCall("execute", { code: executeCode(hooked, 3) }),
              mcp(tools.key, conn.colo),
            ),
          (reply) => expectResult("execute", reply, totals(3)),
        ),
    },
    coldCall(server, world, cold, "cold isolate, first tools/call", hooked, hookedArgs),
  ];
}

/** The colo connection `index` uses for the warm paths: 1, 2, 3, 1, … */
const warmColo = (index: number): number => (index % WARM_COLOS) + 1;

function connectionTo(server: SimServer, index: number): Connection {
  return { colo: warmColo(index), send: client(server.url) };
}

/** One RTT's server, its paths, and the cold colos its cold path takes. */
interface Site {
  rtt: number;
  server: SimServer;
  cases: WorldCase[];
}

/**
 * Every path's times (ms) on every site: samples[site][path][slot], where a
 * slot names the connection and the round (or the cold colo and its turn), so
 * the same slot of two sites was measured at about the same moment and
 * differences pair up as stats.ts's intervals expect. Each connection sends, in
 * each round, every path but the cold one to every site in a shuffled order.
 * The cold calls run beside them, one connection per site and cold colo, each
 * turn waiting until the rounds have come as far through the phase, so that
 * both spread over the same time: a cold call waiting in a round for a free
 * cold colo would hold its connection's other paths back, and the leases of a
 * colo whose connections all wait run out.
 */
async function measureLatency(sites: readonly Site[]): Promise<number[][][]> {
  const rounds = Math.ceil(samplesWanted / connections);
  const perColo = Math.ceil(samplesWanted / coldColos);
  const paths = sites[0]?.cases ?? [];
  const samples = sites.map(() =>
    paths.map((c) =>
      Array.from(
        { length: c.kind === "cold" ? perColo * coldColos : rounds * connections },
        () => Number.NaN,
      ),
    ),
  );
  const hotPairs = sites.flatMap((_, site) =>
    paths.flatMap((c, path) => (c.kind === "cold" ? [] : [{ site, path }])),
  );
  const coldIndex = paths.findIndex((c) => c.kind === "cold");
  // Loads the cold colos' code: a fresh isolate's compile is not what an isolate with emptied caches pays.
  await Promise.all(
    sites.flatMap(({ server, cases }) =>
      Array.from({ length: coldColos }, async (_, i) => cases[coldIndex]?.run(connectionTo(server, i))),
    ),
  );
  const totalRounds = rounds * connections;
  let roundsDone = 0;
  const hot = Array.from({ length: connections }, async (_, index) => {
    const conns = sites.map(({ server }) => connectionTo(server, index));
    for (let round = 0; round < warmupRounds + rounds; round++) {
      const slot = round - warmupRounds;
      for (const { site, path } of shuffled(hotPairs)) {
        const current = sites[site]?.cases[path];
        const conn = conns[site];
        if (current === undefined || conn === undefined) continue;
        if (pauseMs > 0) await sleep(pauseMs);
        const elapsed = await current.run(conn);
        const row = samples[site]?.[path];
        if (slot >= 0 && row !== undefined) row[index * rounds + slot] = elapsed;
      }
      if (slot >= 0) roundsDone += 1;
    }
  });
  /** How far the rounds are through the phase; past their end, cold calls no longer wait. */
  const roundsProgress = () => (roundsDone < totalRounds ? roundsDone / totalRounds : 1);
  const cold = sites.flatMap(({ server, cases }, site) =>
    Array.from({ length: coldIndex < 0 ? 0 : coldColos }, async (_, index) => {
      const conn = connectionTo(server, index);
      const current = cases[coldIndex];
      const row = samples[site]?.[coldIndex];
      if (current === undefined || row === undefined) return;
      for (let turn = 0; turn < perColo; turn++) {
        while (roundsProgress() < turn / perColo) await sleep(25);
        if (pauseMs > 0) await sleep(pauseMs);
        row[index * perColo + turn] = await current.run(conn);
      }
    }),
  );
  await Promise.all([...hot, ...cold]);
  return samples;
}

interface RpcRow extends HomeCounts {
  connections: number;
  calls: number;
  seconds: number;
}

/** Every colo the server runs and the api Worker: whatever the paths sent home, wherever from. */
const allColos = (): number[] => Array.from({ length: WARM_COLOS + coldColos }, (_, i) => i + 1);

/** The warm paths back to back over `count` connections for --rpc-seconds. */
async function measureRpcs(server: SimServer, cases: readonly WorldCase[], count: number): Promise<RpcRow> {
  const warm = cases.filter((c) => c.kind === "hot");
  const order = warm.map((_, i) => i);
  const before = await readIsolates(server.url, allColos());
  const started = performance.now();
  const deadline = started + rpcSeconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const conn = connectionTo(server, index);
      while (performance.now() < deadline) {
        for (const i of shuffled(order)) {
          const current = warm[i];
          if (current === undefined || performance.now() >= deadline) continue;
          await current.run(conn);
          calls += current.calls;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await sleep(SETTLE_MS);
  const home = sentHome(before, await readIsolates(server.url, allColos()));
  return { connections: count, calls, seconds, ...home };
}

interface PathCounts extends HomeCounts {
  name: string;
  calls: number;
}

/** What one call of each path sends home, calls sent one at a time on colo 1. */
async function countPerCall(server: SimServer, cases: readonly WorldCase[]): Promise<PathCounts[]> {
  const conn = connectionTo(server, 0);
  const read = () => readIsolates(server.url, allColos());
  const rows: PathCounts[] = [];
  for (const current of cases) {
    let home = NO_COUNTS;
    let calls = 0;
    if (current.prepared) {
      // Settled before and after, so the un-timed requests' deferred writes fall outside the window.
      for (let k = 0; k < PREPARED_COUNT_CALLS; k++) {
        let start = await read();
        await current.run(conn, {
          before: async () => {
            await sleep(SETTLE_MS);
            start = await read();
          },
          after: async () => {
            await sleep(SETTLE_MS);
            home = addCounts(home, sentHome(start, await read()));
          },
        });
        calls += 1;
      }
    } else {
      await sleep(SETTLE_MS);
      const start = await read();
      for (let k = 0; k < countCalls; k++) await current.run(conn);
      calls = countCalls;
      await sleep(SETTLE_MS);
      home = sentHome(start, await read());
    }
    rows.push({ name: current.name, calls, ...home });
  }
  return rows;
}

/** A path as the report names it. */
type Path = Pick<WorldCase, "name" | "kind">;

interface RttRun {
  rtt: number;
  samples: number[][];
  rpcs: RpcRow[];
  counts: PathCounts[] | null;
  writes: WriteTimes;
}

const seconds = (since: number): number => (performance.now() - since) / 1000;

/** Starts the dev server of one RTT on `stateDir`, at `port`. */
async function startAt(rtt: number, stateDir: string, port: number): Promise<SimServer> {
  return startSimServer({
    port,
    stateDir,
    devVarsPath: join(stateDir, ".dev.vars"),
    stdio: (process.env.BENCH_STDIO as "inherit" | undefined) ?? "ignore",
    // wrangler's trace collector and request log lines cost CPU per request here (dev-server.mjs).
    observability: false,
    logLevel: "warn",
    simHomeRttMs: rtt,
    colos: WARM_COLOS + coldColos,
  });
}

/**
 * The world, set up once against the first RTT's server (a far home makes a
 * set-up take minutes and measures nothing), and its state copied for every
 * other RTT's server. The copies' services and providers still name the first
 * server's demo upstream and provider, which run for the whole bench.
 */
async function setUp(stateDirs: readonly string[]): Promise<World> {
  const [first, ...others] = stateDirs;
  if (first === undefined) throw new Error("no RTT to run");
  const server = await startAt(rtts[0] ?? 0, first, basePort);
  let world: World;
  try {
    world = await setUpWorld(server);
  } finally {
    await server.stop();
  }
  for (const dir of others) cpSync(first, dir, { recursive: true });
  return world;
}

const p = (values: readonly number[], q: number): number =>
  percentile(
    values.toSorted((a, b) => a - b),
    q,
  );

/**
 * (q-th percentile at `rtt` − at 0) / rtt, with the 95 % interval of the
 * paired bootstrap over slots (both sites were measured in the same slot).
 */
function trips(at: readonly number[], zero: readonly number[], rtt: number, q: number) {
  const { low, high } = differenceInterval(at, zero, q);
  return { value: (p(at, q) - p(zero, q)) / rtt, low: low / rtt, high: high / rtt };
}

const f2 = (x: number): string => x.toFixed(2);
const ms1 = (x: number): string => x.toFixed(1);
const interval = (t: { value: number; low: number; high: number }): string =>
  `${f2(t.value)} [${f2(t.low)} … ${f2(t.high)}]`;
const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
const rule = (columns: number): string => row(Array.from({ length: columns }, () => "---"));

function report(paths: readonly Path[], runs: readonly RttRun[]): void {
  const zero = runs[0];
  const far = runs.at(-1);
  if (zero === undefined || far === undefined) return;
  const of = (run: RttRun, i: number): number[] => run.samples[i] ?? [];

  console.log(`\n## The paths, ${samplesWanted}+ samples per path per RTT (latency in ms)\n`);
  const header = [
    "path",
    ...runs.map((r) => `p50 @${r.rtt}`),
    `p99 @${far.rtt}`,
    `home trips/call @${far.rtt} [95% CI]`,
  ];
  console.log(row(header));
  console.log(rule(header.length));
  paths.forEach(({ name }, i) => {
    const t = trips(of(far, i), of(zero, i), far.rtt, 50);
    console.log(row([name, ...runs.map((r) => ms1(p(of(r, i), 50))), ms1(p(of(far, i), 99)), interval(t)]));
  });

  console.log(`\n## RPCs per 1,000 calls (WorkspaceObject, api Worker and every gateway colo)\n`);
  const rpcHeader = ["RTT", ...rpcConnections.map((n) => `${n} conn.`)];
  console.log(row(rpcHeader));
  console.log(rule(rpcHeader.length));
  for (const run of runs) {
    console.log(
      row([
        `${run.rtt} ms`,
        ...run.rpcs.map(
          (r) =>
            `${ms1((r.workspaceRpcs / Math.max(1, r.calls)) * 1000)} (${r.workspaceRpcs} in ${r.calls} calls)`,
        ),
      ]),
    );
  }

  console.log(`\n### The RPC phases: calls and home awaits per second, D1 and R2 per 1,000 calls\n`);
  const detailHeader = ["RTT", "conn.", "calls/s", "RPCs/s", "RPCs/1k", "D1/1k", "R2/1k"];
  console.log(row(detailHeader));
  console.log(rule(detailHeader.length));
  for (const run of runs) {
    for (const r of run.rpcs) {
      const per1k = (n: number) => ms1((n / Math.max(1, r.calls)) * 1000);
      console.log(
        row([
          `${run.rtt} ms`,
          String(r.connections),
          ms1(r.calls / r.seconds),
          f2(r.workspaceRpcs / r.seconds),
          per1k(r.workspaceRpcs),
          per1k(r.d1Queries),
          per1k(r.r2Ops),
        ]),
      );
    }
  }

  console.log(`\n### Every RTT's p50 and p99 (ms), and home trips per call at p50 and p99\n`);
  const middle = runs.slice(1, -1);
  const fullHeader = [
    "path",
    ...runs.flatMap((r) => [`p50 @${r.rtt}`, `p99 @${r.rtt}`]),
    ...middle.map((r) => `trips p50 @${r.rtt}`),
    `trips p99 @${far.rtt}`,
  ];
  console.log(row(fullHeader));
  console.log(rule(fullHeader.length));
  paths.forEach(({ name }, i) => {
    const at = (r: RttRun, q: number) => trips(of(r, i), of(zero, i), r.rtt, q);
    console.log(
      row([
        name,
        ...runs.flatMap((r) => [ms1(p(of(r, i), 50)), ms1(p(of(r, i), 99))]),
        ...middle.map((r) => interval(at(r, 50))),
        interval(at(far, 99)),
      ]),
    );
  });

  if (zero.counts !== null) {
    console.log(`\n### Sent home per call at RTT 0 (one call at a time on one colo; run records included)\n`);
    const countHeader = ["path", "calls", "RPCs/call", "D1/call", "R2/call", "rounds/call"];
    console.log(row(countHeader));
    console.log(rule(countHeader.length));
    for (const c of zero.counts) {
      console.log(
        row([
          c.name,
          String(c.calls),
          f2(c.workspaceRpcs / c.calls),
          f2(c.d1Queries / c.calls),
          f2(c.r2Ops / c.calls),
          f2(c.rounds / c.calls),
        ]),
      );
    }
  }

  console.log(
    `\n### Deploys and revocations as their callers see them (each right after a call on every colo took a lease)\n`,
  );
  const writeHeader = ["write", "n", "p50 ms", "max ms", "lease + margin + 2 RTT", "max within it"];
  console.log(row(writeHeader));
  console.log(rule(writeHeader.length));
  for (const cells of writeRows(runs)) console.log(row(cells));

  console.log(`\n### Targets at RTT ${far.rtt} (reported, not enforced)\n`);
  paths.forEach(({ name, kind }, i) => {
    const atP50 = trips(of(far, i), of(zero, i), far.rtt, 50).value;
    const atP99 = trips(of(far, i), of(zero, i), far.rtt, 99).value;
    const verdicts: Record<Path["kind"], string> = {
      hot: `${atP50 <= 0.05 ? "meets" : "misses"} ≤ 0.05 trips at p50 (${f2(atP50)}), ${atP99 <= 1 ? "meets" : "misses"} ≤ 1 at p99 (${f2(atP99)})`,
      cold: `${atP50 <= 2 ? "meets" : "misses"} ≤ 2 trips at p50 (${f2(atP50)})`,
      baseline: `no home await: its ${f2(atP50)} trips at p50 and ${f2(atP99)} at p99 are what the sites differ by without one`,
    };
    console.log(`- ${name}: ${verdicts[kind]}`);
  });
  for (const run of runs) {
    const at8 = run.rpcs.find((r) => r.connections === 8);
    if (at8 === undefined) continue;
    const per1k = (at8.workspaceRpcs / Math.max(1, at8.calls)) * 1000;
    const rates = run.rpcs.map(
      (r) => `${ms1(r.calls / r.seconds)} calls/s → ${f2(r.workspaceRpcs / r.seconds)} RPCs/s`,
    );
    console.log(
      `- RTT ${run.rtt} ms: ${ms1(per1k)} RPCs per 1,000 calls at 8 connections (${per1k <= 10 ? "meets" : "misses"} ≤ 10); ${rates.join(", ")}`,
    );
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  const root = mkdtempSync(join(tmpdir(), "rayrun-bench-world-"));
  const stateDirs = rtts.map((rtt) => join(root, `rtt-${rtt}`));
  const sites: Site[] = [];
  const runs: RttRun[] = [];
  let paths: Path[] = [];
  try {
    console.log(`state in ${root}; setting up the workspaces against RTT ${rtts[0]} ms …`);
    const world = await setUp(stateDirs);
    console.log(`set up in ${seconds(began).toFixed(0)} s; starting one server per RTT, side by side …`);
    const starting = performance.now();
    const started = await Promise.allSettled(
      rtts.map(async (rtt, i) => {
        const port = basePort + 3 * i;
        const server = await startAt(rtt, stateDirs[i] ?? "", port);
        console.log(
          `RTT ${rtt} ms: wrangler dev on 127.0.0.1:${port} (${WARM_COLOS} + ${coldColos} cold gateway colos), up after ${seconds(starting).toFixed(0)} s`,
        );
        return server;
      }),
    );
    started.forEach((outcome, i) => {
      if (outcome.status !== "fulfilled") return;
      const server = outcome.value;
      const pool = new ColdColos(Array.from({ length: coldColos }, (_, c) => WARM_COLOS + c + 1));
      sites.push({ rtt: rtts[i] ?? 0, server, cases: worldCases(server, world, pool) });
    });
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    paths = (sites[0]?.cases ?? []).map(({ name, kind }) => ({ name, kind }));

    const latencyAt = performance.now();
    const samples = await measureLatency(sites);
    console.log(
      `latency: every RTT side by side, ${samples[0]?.[0]?.length ?? 0} samples per path and RTT, ${seconds(latencyAt).toFixed(0)} s`,
    );
    const rpcAt = performance.now();
    const rpcs = sites.map((): RpcRow[] => []);
    for (const count of rpcConnections) {
      const rows = await Promise.all(sites.map(({ server, cases }) => measureRpcs(server, cases, count)));
      rows.forEach((r, i) => rpcs[i]?.push(r));
    }
    console.log(`RPC phases: every RTT side by side, ${seconds(rpcAt).toFixed(0)} s`);
    const countAt = performance.now();
    const zero = sites[0];
    let counts: PathCounts[] | null = null;
    if (zero !== undefined && zero.rtt === 0) {
      // For the counts only: what the adapter's revision adds to a cold call.
      const coldUnhooked = coldCall(
        zero.server,
        world,
        new ColdColos(Array.from({ length: coldColos }, (_, c) => WARM_COLOS + c + 1)),
        "cold isolate, first tools/call, unhooked",
        world.tools.names.plain ?? "",
        { q: "workers release" },
      );
      counts = await countPerCall(zero.server, [...zero.cases, coldUnhooked]);
      console.log(`per-call counts at RTT 0: ${seconds(countAt).toFixed(0)} s`);
    }
    const writesAt = performance.now();
    const writes = await Promise.all(
      sites.map(({ server }) =>
        measureWrites(
          {
            url: server.url,
            ws: { uid: world.tools.uid, key: world.tools.key, tool: world.tools.names.hooked ?? "" },
            holdLeases: async () => {
              const send = client(server.url);
              const plain = world.tools.names.plain ?? "";
              await Promise.all(
                Array.from({ length: WARM_COLOS }, (_, i) =>
                  send(
                    "POST",
                    `/mcp/${world.tools.uid}`,
                    toolCall(plain, { q: "lease" }),
                    mcp(world.tools.key, i + 1),
                  ),
                ),
              );
            },
          },
          writeRounds,
        ),
      ),
    );
    console.log(`writes: every RTT side by side, ${seconds(writesAt).toFixed(0)} s`);
    sites.forEach(({ rtt }, i) =>
      runs.push({
        rtt,
        samples: samples[i] ?? [],
        rpcs: rpcs[i] ?? [],
        counts: i === 0 ? counts : null,
        writes: writes[i] ?? { deploy: [], revoke: [] },
      }),
    );
  } finally {
    await Promise.all(sites.map(({ server }) => server.stop()));
    if (!keepState) rmSync(root, { recursive: true, force: true });
  }
  report(paths, runs);
  console.log(`\nwhole run ${seconds(began).toFixed(0)} s`);
}

await main();
