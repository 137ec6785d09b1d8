// Whether a busy isolate stays inside its 128 MB (Node, tsx), through `wrangler dev` on loopback.
//
//   npx tsx bench/soak.ts [--minutes M] [--connections N] [--sample-seconds S] [--port P] [--snapshots DIR]
//
// A deployed isolate has 128 MB for its V8 heap and its wasm memory together,
// and a gateway isolate lives for as long as traffic keeps it busy, so what it
// keeps from one call to the next must level off. This starts both Workers, the
// demo upstream and the demo LLM provider (scripts/dev-server.mjs), sets up a
// workspace like the one `npm start` shows, with the benches' rate limits (the
// gateway bench's ~2 KB adapter, the example request hook on both providers,
// the example plugins, one of them a plugin tool and one that always throws),
// then sends a mix of calls over N keep-alive connections (4 by default) for M
// minutes (10 by default): hooked MCP tool calls, calls only plugins see, the
// plugin tool, LLM proxy calls through the request hook on the OpenAI and the
// Anthropic route, and Code Mode `execute` calling two tools, each program a
// new one as an agent's are.
//
// Every S seconds (10 by default) it reads each Worker's heap through the V8
// inspector: `Runtime.getHeapUsage` (V8 used and total, and the array buffers
// outside the heap: the sandbox's memory images among them), and the byte
// length of the Worker's WebAssembly memories (the api Worker has esbuild's
// beside QuickJS's). The dev server's inspector (its port + 1000) is
// wrangler's proxy of the first Worker only (the api Worker), so the gateway
// is reached through workerd's own inspector, found from the proxy's process
// (Linux /proc). A Worker's memories are found once with `Runtime.queryObjects`,
// which collects all garbage first; the references are kept, so later samples
// read them without a collection that would shrink the heap being measured.
// At the end it prints what a full collection leaves, whether the gateway's V8
// total plus wasm stayed under 96 MB, and whether it still grew over the last
// 5 minutes. It exits non-zero on failed calls only, never on the figures.
//
// `--snapshots DIR` also writes a heap snapshot of the gateway after the
// warm-up and one at the end (Chrome DevTools' .heapsnapshot, to compare), and
// prints the constructors whose objects grew most between the two.
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { rpcMessage, withBenchServer, type DevServer } from "./dev-server";
import { ADAPTER_SOURCE, api, setUpWorkspace } from "./gateway-setup";
import { client, type Reply } from "./http-client";
import { option } from "./options";
import { summarize, ms } from "./stats";

const minutes = Number(option("minutes", "10"));
const connections = Number(option("connections", "4"));
const sampleSeconds = Number(option("sample-seconds", "10"));
const port = Number(option("port", "8850"));
const snapshotDir = option("snapshots", "");

const MiB = 1024 * 1024;
/** A quarter of the isolate's 128 MB kept free for request bodies, parked states and what a sample misses. */
const BUDGET_BYTES = 96 * MiB;
/** The window the growth verdict looks at, and its thirds' means against each other. */
const TAIL_MS = 5 * 60_000;
/** Less than this between the tail's first and last thirds is the GC's sawtooth, not growth. */
const GROWTH_NOISE_BYTES = 2 * MiB;
/** Longer than any call of the mix takes on a loaded machine; a runtime that restarted never answers. */
const CALL_TIMEOUT_MS = 60_000;

interface InspectorTarget {
  id: string;
  title: string;
  webSocketDebuggerUrl: string;
}

interface RemoteObject {
  type: string;
  objectId?: string;
  value?: unknown;
}

interface HeapUsage {
  usedSize: number;
  totalSize: number;
  /** Array buffers' backing stores and external strings; a wasm memory's is not among them. */
  backingStorageSize?: number;
}

// Node's WebSocket (undici) takes request headers; the DOM typing only knows protocols.
type HeaderWebSocket = new (url: string, init: { headers: Record<string, string> }) => WebSocket;

/** One Chrome DevTools Protocol session with a Worker's isolate. */
class Inspector {
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private readonly listeners = new Map<string, (params: unknown) => void>();

  private constructor(
    readonly name: string,
    private readonly socket: WebSocket,
  ) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: { message: string };
      };
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${this.name}: ${message.error.message}`));
        else waiter?.resolve(message.result);
      } else if (message.method !== undefined) {
        this.listeners.get(message.method)?.(message.params);
      }
    });
    socket.addEventListener("close", () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`${this.name}: inspector closed`));
      this.pending.clear();
    });
  }

  static async open(name: string, url: string): Promise<Inspector> {
    // Wrangler's proxy refuses an upgrade without an Origin it knows (DevTools' or a local one).
    const socket = new (WebSocket as unknown as HeaderWebSocket)(url, {
      headers: { origin: "http://127.0.0.1" },
    });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`${name}: cannot open ${url}`)), {
        once: true,
      });
    });
    return new Inspector(name, socket);
  }

  /** A command's result; a reply that never comes fails the run rather than stalling it. */
  send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name}: no answer to ${method} in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  on(method: string, listener: (params: unknown) => void): void {
    this.listeners.set(method, listener);
  }

  close(): void {
    this.socket.close();
  }

  /**
   * The Worker's execution context: workerd has no default one to evaluate in.
   * V8 announces contexts when the Runtime domain is enabled, and not again on
   * a session that has it on already, as wrangler's proxy keeps its own.
   */
  async context(): Promise<number> {
    await this.send("Runtime.disable");
    const created = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no execution context announced`)),
        30_000,
      );
      this.on("Runtime.executionContextCreated", (params) => {
        clearTimeout(timer);
        resolve((params as { context: { id: number } }).context.id);
      });
    });
    const [, id] = await Promise.all([this.send("Runtime.enable"), created]);
    // Left on, every console line and exception of the Worker would come over the socket.
    await this.send("Runtime.disable");
    return id;
  }
}

/**
 * A Worker's WebAssembly memories, found once and then read without a
 * collection. Until its first sandbox call a Worker has none, and each
 * look costs a full collection, so an empty answer is retried at most once
 * a minute. A memory replaced after a trap stays held (and counted) until
 * the look after the run.
 */
class WasmMemories {
  private held: string | null = null;
  private count = 0;
  private lastLook = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly inspector: Inspector,
    private readonly contextId: number,
  ) {}

  /** Finds the live memories now (a full collection), dropping any held ones. */
  async find(): Promise<number> {
    this.lastLook = performance.now();
    if (this.held !== null) await this.inspector.send("Runtime.releaseObjectGroup", { objectGroup: "soak" });
    this.held = null;
    const { result: prototype } = await this.inspector.send<{ result: RemoteObject }>("Runtime.evaluate", {
      expression: "WebAssembly.Memory.prototype",
      contextId: this.contextId,
      objectGroup: "soak",
    });
    const { objects } = await this.inspector.send<{ objects: RemoteObject }>("Runtime.queryObjects", {
      prototypeObjectId: prototype.objectId,
      objectGroup: "soak",
    });
    const length = await this.call<number>(objects, "function () { return this.length; }");
    this.count = length;
    if (length > 0) this.held = objects.objectId ?? null;
    else await this.inspector.send("Runtime.releaseObjectGroup", { objectGroup: "soak" });
    return length;
  }

  /** Bytes of the held memories (0 before the Worker has one), and how many there are. */
  async bytes(): Promise<{ bytes: number; memories: number }> {
    if (this.held === null && performance.now() - this.lastLook > 60_000) await this.find();
    if (this.held === null) return { bytes: 0, memories: 0 };
    const bytes = await this.call<number>(
      { type: "object", objectId: this.held },
      "function () { return this.reduce((sum, memory) => sum + memory.buffer.byteLength, 0); }",
    );
    return { bytes, memories: this.count };
  }

  private async call<T>(target: RemoteObject, functionDeclaration: string): Promise<T> {
    const { result } = await this.inspector.send<{ result: RemoteObject }>("Runtime.callFunctionOn", {
      objectId: target.objectId,
      functionDeclaration,
      returnByValue: true,
    });
    return result.value as T;
  }
}

/** Loopback TCP sockets listening, by inode: their ports. */
function listeningPorts(): Map<string, number> {
  const ports = new Map<string, number>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // 0A: LISTEN. The local address is hex "addr:port"; the inode is the tenth field.
      if (fields[3] !== "0A" || fields[1] === undefined || fields[9] === undefined) continue;
      ports.set(fields[9], Number.parseInt(fields[1].split(":")[1] ?? "0", 16));
    }
  }
  return ports;
}

function socketInodes(pid: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? ""];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** Parent pid and command name of a process, from /proc/<pid>/stat. */
function processStat(pid: string): { ppid: string; name: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    return {
      name: stat.slice(stat.indexOf("(") + 1, close),
      ppid: stat.slice(close + 2).split(" ")[1] ?? "",
    };
  } catch {
    return null;
  }
}

/**
 * The ports workerd's own inspector may listen on, for the dev server whose
 * inspector proxy listens on `proxyPort`: wrangler starts its proxy and the
 * Workers' runtime as two workerd processes of one parent, the runtime with
 * `--inspector-addr`; the ports that runtime listens on are its entry, its
 * debug port and its inspector.
 */
function runtimeInspectorCandidates(proxyPort: number): number[] {
  const listening = listeningPorts();
  const proxyInodes = new Set([...listening].filter(([, p]) => p === proxyPort).map(([inode]) => inode));
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  const proxy = pids.find((pid) => socketInodes(pid).some((inode) => proxyInodes.has(inode)));
  const parent = proxy === undefined ? undefined : processStat(proxy)?.ppid;
  if (parent === undefined) throw new Error(`no process listens on the inspector port ${proxyPort}`);
  const runtimes = pids.filter((pid) => {
    if (pid === proxy) return false;
    const stat = processStat(pid);
    if (stat?.ppid !== parent || stat.name !== "workerd") return false;
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--inspector-addr");
  });
  return runtimes.flatMap((pid) => socketInodes(pid).flatMap((inode) => listening.get(inode) ?? []));
}

async function listTargets(inspectorPort: number): Promise<InspectorTarget[]> {
  const res = await fetch(`http://127.0.0.1:${inspectorPort}/json/list`, {
    signal: AbortSignal.timeout(2000),
  });
  if (!res.ok) throw new Error(`${inspectorPort}/json/list: HTTP ${res.status}`);
  const listed: unknown = await res.json();
  if (!Array.isArray(listed)) throw new Error(`${inspectorPort}/json/list is not a list`);
  return listed as InspectorTarget[];
}

/** A Worker's name in its wrangler config. */
function workerName(config: string): string {
  const text = readFileSync(new URL(`../${config}`, import.meta.url), "utf8");
  const name = /^name\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  if (name === undefined) throw new Error(`${config} names no Worker`);
  return name;
}

/** Sessions with the api Worker (through the dev server's inspector) and the gateway (through workerd's). */
async function openInspectors(server: DevServer): Promise<{ api: Inspector; gateway: Inspector }> {
  const proxyPort = Number(new URL(server.url).port) + 1000;
  const [proxied] = await listTargets(proxyPort);
  if (proxied === undefined) throw new Error(`the inspector on ${proxyPort} lists no Worker`);
  const gatewayTarget = `core:user:${workerName("workers/gateway/wrangler.toml")}`;
  for (const candidate of runtimeInspectorCandidates(proxyPort)) {
    const targets = await listTargets(candidate).catch(() => []);
    const target = targets.find((t) => t.id === gatewayTarget);
    if (target === undefined) continue;
    console.log(
      `inspectors: api Worker through ${proxyPort} (wrangler's proxy lists ${proxied.title}), gateway through workerd's ${candidate} (${targets.filter((t) => t.id.startsWith("core:user:")).length} Workers)`,
    );
    return {
      api: await Inspector.open("api", proxied.webSocketDebuggerUrl),
      gateway: await Inspector.open("gateway", target.webSocketDebuggerUrl),
    };
  }
  throw new Error(`no workerd inspector beside ${proxyPort} lists ${gatewayTarget}`);
}

interface WorkerSample {
  used: number;
  total: number;
  wasm: number;
  memories: number;
  /** Array buffers (the sandbox's images, bodies) and external strings; null when the runtime does not say. */
  buffers: number | null;
}

interface Sample {
  seconds: number;
  api: WorkerSample;
  gateway: WorkerSample;
  requests: number;
  errors: number;
}

class WorkerProbe {
  constructor(
    readonly inspector: Inspector,
    readonly wasm: WasmMemories,
  ) {}

  static async of(inspector: Inspector): Promise<WorkerProbe> {
    return new WorkerProbe(inspector, new WasmMemories(inspector, await inspector.context()));
  }

  async sample(): Promise<WorkerSample> {
    // The heap first: a look for memories collects garbage.
    const usage = await this.inspector.send<HeapUsage>("Runtime.getHeapUsage");
    const { bytes, memories } = await this.wasm.bytes();
    return {
      used: usage.usedSize,
      total: usage.totalSize,
      wasm: bytes,
      memories,
      buffers: usage.backingStorageSize ?? null,
    };
  }
}

const mb = (bytes: number): string => (bytes / MiB).toFixed(1);
const sumOf = (s: WorkerSample): number => s.total + s.wasm;

const WORKER_COLUMNS = ["V8 used", "V8 total", "wasm", "sum", "buffers"];

function header(): string {
  const worker = (name: string) => name.padEnd(WORKER_COLUMNS.length * 9 - 1, "─");
  const columns = WORKER_COLUMNS.map((c) => c.padStart(8)).join(" ");
  return [
    `${"".padStart(6)}  ${worker("api Worker ")}  ${worker("gateway ")}  ${"traffic".padEnd(15, "─")}`,
    `${"time".padStart(6)}  ${columns}  ${columns}  ${"req/s".padStart(7)} ${"errors".padStart(7)}`,
  ].join("\n");
}

const bufferCell = (s: WorkerSample): string => (s.buffers === null ? "–" : mb(s.buffers));

const cells = (s: WorkerSample): string =>
  [s.used, s.total, s.wasm, sumOf(s)]
    .map((v) => mb(v).padStart(8))
    .concat(bufferCell(s).padStart(8))
    .join(" ");

/** What a Worker holds once a full collection has run. */
const live = (name: string, s: WorkerSample): string =>
  `${name} V8 used ${mb(s.used)} of ${mb(s.total)} MB, ${s.memories} wasm memories (${mb(s.wasm)} MB), buffers ${bufferCell(s)} MB`;

function row(sample: Sample, rate: number): string {
  const minutes_ = Math.floor(sample.seconds / 60);
  const time = `${minutes_}:${String(Math.round(sample.seconds % 60)).padStart(2, "0")}`;
  return `${time.padStart(6)}  ${cells(sample.api)}  ${cells(sample.gateway)}  ${rate.toFixed(0).padStart(7)} ${String(sample.errors).padStart(7)}`;
}

const mean = (values: readonly number[]): number =>
  values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/** Least-squares slope of `values` over `seconds`, per minute. */
function slopePerMinute(seconds: readonly number[], values: readonly number[]): number {
  const mx = mean(seconds);
  const my = mean(values);
  let num = 0;
  let den = 0;
  seconds.forEach((x, i) => {
    num += (x - mx) * ((values[i] ?? my) - my);
    den += (x - mx) ** 2;
  });
  return den === 0 ? 0 : (num / den) * 60;
}

/** The levelling-off verdict for one Worker's V8 total + wasm. */
function verdict(name: string, samples: readonly Sample[], pick: (s: Sample) => WorkerSample): string[] {
  const last = samples.at(-1);
  if (last === undefined) return [`${name}: no samples`];
  const tailMs = Math.min(TAIL_MS, (last.seconds * 1000) / 2);
  const tail = samples.filter((s) => s.seconds * 1000 >= last.seconds * 1000 - tailMs);
  const third = Math.max(1, Math.floor(tail.length / 3));
  const first = mean(tail.slice(0, third).map((s) => sumOf(pick(s))));
  const final = mean(tail.slice(-third).map((s) => sumOf(pick(s))));
  const peak = Math.max(...samples.map((s) => sumOf(pick(s))));
  const growth = final - first;
  const grew = growth > GROWTH_NOISE_BYTES;
  const slope = slopePerMinute(
    tail.map((s) => s.seconds),
    tail.map((s) => sumOf(pick(s))),
  );
  const under = peak < BUDGET_BYTES;
  const tailMinutes = (tailMs / 60_000).toFixed(tailMs % 60_000 === 0 ? 0 : 1);
  return [
    `${name}: V8 total + wasm peaked at ${mb(peak)} MB (${under ? "under" : "OVER"} ${mb(BUDGET_BYTES)} MB); ` +
      `over the last ${tailMinutes} min the mean of its last third (${third} samples) is ${mb(final)} MB against ${mb(first)} MB in its first third: ` +
      `${growth >= 0 ? "+" : "−"}${mb(Math.abs(growth))} MB, ${grew ? "STILL GROWING" : "levelled off"} ` +
      `(growth counts above ${mb(GROWTH_NOISE_BYTES)} MB; least-squares slope ${slope >= 0 ? "+" : "−"}${mb(Math.abs(slope))} MB/min)`,
    `  → ${under && !grew ? "levelled off under 96 MB" : under ? "under 96 MB but not levelled off" : "not under 96 MB"}` +
      `; with its array buffers (outside this verdict) it peaked at ${mb(Math.max(...samples.map((s) => sumOf(pick(s)) + (pick(s).buffers ?? 0))))} MB`,
  ];
}

interface HeapSnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

async function takeSnapshot(inspector: Inspector, path: string): Promise<HeapSnapshotFile> {
  const chunks: string[] = [];
  inspector.on("HeapProfiler.addHeapSnapshotChunk", (params) => {
    chunks.push((params as { chunk: string }).chunk);
  });
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false }, 600_000);
  const text = chunks.join("");
  writeFileSync(path, text);
  return JSON.parse(text) as HeapSnapshotFile;
}

/** Self bytes and counts of a snapshot's objects by constructor (a node's name, or its type for non-objects). */
function byConstructor(file: HeapSnapshotFile): Map<string, { bytes: number; count: number }> {
  const fields = file.snapshot.meta.node_fields;
  const types = file.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const totals = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < file.nodes.length; i += width) {
    const type = types[file.nodes[i + typeAt] ?? 0] ?? "?";
    const key =
      type === "object" || type === "native"
        ? (file.strings[file.nodes[i + nameAt] ?? 0] ?? "?")
        : `(${type})`;
    const entry = totals.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += file.nodes[i + sizeAt] ?? 0;
    entry.count++;
    totals.set(key, entry);
  }
  return totals;
}

function printGrowth(early: HeapSnapshotFile, late: HeapSnapshotFile): void {
  const before = byConstructor(early);
  const after = byConstructor(late);
  const rows = [...after].map(([name, { bytes, count }]) => ({
    name,
    bytes: bytes - (before.get(name)?.bytes ?? 0),
    count: count - (before.get(name)?.count ?? 0),
  }));
  rows.sort((a, b) => b.bytes - a.bytes);
  console.log(
    "\ngateway heap, late snapshot against early: constructors by growth of their objects' own bytes",
  );
  console.log(`${"constructor".padEnd(48)} ${"Δ KB".padStart(9)} ${"Δ objects".padStart(10)}`);
  for (const r of rows.slice(0, 20))
    console.log(
      `${r.name.slice(0, 48).padEnd(48)} ${(r.bytes / 1024).toFixed(0).padStart(9)} ${String(r.count).padStart(10)}`,
    );
}

interface Workspace {
  uid: string;
  key: string;
  /** The public name of the upstream's search_release_notes, the adapter's tool. */
  search: string;
}

const example = (path: string): string =>
  readFileSync(new URL(`../dev/examples/${path}`, import.meta.url), "utf8");

/** The workspace secret with the provider's key (the demo provider takes any); its fake is `<providerUrl>/soak`. */
const PROVIDER_SECRET = "soak-provider-key";

/** Draft, test run and active deployment of a workspace file: a version deploys once a run of it completed. */
async function deployFile(
  server: DevServer,
  key: string,
  base: string,
  path: string,
  source: string,
  test: Record<string, unknown>,
): Promise<void> {
  const file = `${base}/files/${encodeURIComponent(path)}`;
  const { headers } = await api(server.url, key, "GET", file);
  const { data: saved } = await api(
    server.url,
    key,
    "PUT",
    `${file}/draft`,
    { source, config: {} },
    { "if-match": headers.get("etag") ?? "" },
  );
  const { data: tested } = await api(server.url, key, "POST", `${file}/test`, {
    ...test,
    version: saved.version,
  });
  if (tested.ok !== true) throw new Error(`testing ${path}: ${JSON.stringify(tested)}`);
  await api(server.url, key, "POST", `${file}/deployments`, { version: saved.version, channel: "active" });
}

/**
 * The gateway bench's workspace with the adapter on the upstream's search tool,
 * then what `npm start` adds for the LLM proxy and plugins: the providers, the
 * example request hook as `pre_llm_hook`, and the example plugins in the same
 * order (word-count runs auto-discovered after the listed ones).
 */
async function setUp(server: DevServer): Promise<Workspace> {
  const ws = await setUpWorkspace(server.url, server.upstreamUrl, server.key, [
    {
      name: "soak",
      adapter: {
        source: ADAPTER_SOURCE,
        test: { stage: "before", arguments: { query: "the workers release" } },
      },
    },
  ]);
  const base = `/v1/workspaces/${ws.uid}`;
  const deploy = (path: string, source: string, test: Record<string, unknown>) =>
    deployFile(server, ws.key, base, path, source, test);
  await api(server.url, ws.key, "PUT", `${base}/secrets/${PROVIDER_SECRET}`, { value: "sk-soak" });
  await deploy("lib/request-policy.ts", example("request-policy.ts"), {
    export: "transform",
    input: {
      request: { messages: [{ role: "user", content: "hi" }], tools: [], options: {} },
      loop: { name: "main" },
    },
  });
  const echoed = { toolID: "echo", args: { text: "card 4111 1111" } };
  await deploy("plugins/redact.ts", example("plugins/redact.ts"), {
    hook: "tool.execute.after",
    input: { ...echoed, result: { title: "echo", output: "card 4111 1111", metadata: { isError: false } } },
  });
  await deploy("plugins/broken.ts", example("plugins/broken.ts"), {
    hook: "tool.execute.before",
    input: echoed,
  });
  await deploy("plugins/temperature.ts", example("plugins/temperature.ts"), {
    hook: "chat.params",
    input: { model: "demo", temperature: 0.7 },
  });
  // An observing hook besides the tool, so that the soak's tool calls also pass through a plugin hook that passes.
  const wordCount = example("plugins/word-count.ts").replace(
    "export default {",
    'export default {\n  "tool.execute.before": () => undefined,',
  );
  await deploy("plugins/word-count.ts", wordCount, { hook: "tool.execute.before", input: echoed });
  const provider = `${server.providerUrl}/soak`;
  const { data: stored, headers } = await api(server.url, ws.key, "GET", `${base}/config`);
  await api(
    server.url,
    ws.key,
    "PUT",
    `${base}/config`,
    {
      ...(stored.config as object),
      providers: {
        openai: { baseUrl: `${provider}/v1`, apiKeySecret: PROVIDER_SECRET },
        anthropic: { baseUrl: provider, apiKeySecret: PROVIDER_SECRET },
      },
      pre_llm_hook: { source: "lib/request-policy.ts:transform", scope: "all" },
      plugins: ["redact", "broken", "temperature"],
    },
    { "if-match": headers.get("etag") ?? "" },
  );
  return { uid: ws.uid, key: ws.key, search: ws.names.soak ?? "" };
}

const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

interface Kind {
  name: string;
  /** The n-th call of this kind; its reply, or why it failed. */
  send(send: Send, n: number): Promise<string | null>;
}

type Send = ReturnType<typeof client>;

const WORDS = ["workers", "release", "pages", "durable", "objects", "queues", "d1", "r2", "notes", "limits"];
const words = (n: number, count: number): string =>
  Array.from({ length: count }, (_, i) => WORDS[(n + i * 7) % WORDS.length]).join(" ");

/** Why an MCP answer is not a successful tool result, or null. */
function mcpFailure(reply: Reply, expect?: (result: Record<string, unknown>) => boolean): string | null {
  if (reply.status !== 200) return `HTTP ${reply.status}: ${reply.body.slice(0, 200)}`;
  const message = rpcMessage(reply.body);
  if (message.error !== undefined || message.result?.isError) return reply.body.slice(0, 200);
  if (expect && !expect(message.result as Record<string, unknown>))
    return `unexpected: ${reply.body.slice(0, 200)}`;
  return null;
}

const textOf = (result: Record<string, unknown>): string =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? "").join("");

function callKinds(ws: Workspace): Kind[] {
  const mcp = `/mcp/${ws.uid}`;
  const auth = { authorization: `Bearer ${ws.key}` };
  let id = 0;
  const call = (send: Send, path: string, name: string, args: unknown) =>
    send(
      "POST",
      path,
      { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args } },
      { ...auth, ...MCP_HEADERS },
    );
  const tools = [{ type: "function", function: { name: "fs_read", parameters: { type: "object" } } }];
  return [
    {
      name: "MCP call, adapter + plugins",
      send: async (send, n) =>
        mcpFailure(await call(send, mcp, ws.search, { query: words(n, 3), limit: 1 + (n % 5) }), (r) =>
          Array.isArray((r.structuredContent as { items?: unknown } | undefined)?.items),
        ),
    },
    {
      name: "MCP call, plugins only",
      send: async (send, n) =>
        mcpFailure(
          await call(send, mcp, "echo", { text: `${words(n, 2)} card 4111 1111 ${1000 + (n % 9000)}` }),
          (r) => textOf(r).includes("[redacted]"),
        ),
    },
    {
      name: "plugin tool word_count",
      send: async (send, n) =>
        mcpFailure(await call(send, mcp, "word_count", { text: words(n, 1 + (n % 5)) }), (r) =>
          textOf(r).startsWith(`${1 + (n % 5)} words`),
        ),
    },
    {
      name: "LLM OpenAI, request hook",
      send: async (send, n) => {
        const reply = await send(
          "POST",
          `/llm/${ws.uid}/openai/v1/chat/completions`,
          {
            model: "demo",
            messages: [{ role: "user", content: words(n, 6) }],
            tools: [
              ...tools,
              { type: "function", function: { name: "shell_exec", parameters: { type: "object" } } },
            ],
          },
          auth,
        );
        return reply.status === 200 ? null : `HTTP ${reply.status}: ${reply.body.slice(0, 200)}`;
      },
    },
    {
      name: "LLM Anthropic, request hook",
      send: async (send, n) => {
        const reply = await send(
          "POST",
          `/llm/${ws.uid}/anthropic/v1/messages`,
          {
            model: "demo",
            max_tokens: 64,
            messages: [{ role: "user", content: words(n, 6) }],
            tools: [{ name: "fs_write", input_schema: { type: "object" } }],
          },
          { "x-api-key": ws.key, "anthropic-version": "2023-06-01" },
        );
        return reply.status === 200 ? null : `HTTP ${reply.status}: ${reply.body.slice(0, 200)}`;
      },
    },
    {
      name: "Code Mode execute, 2 calls",
      send: async (send, n) => {
        const code = [
          // An agent writes a new program for every execute: no two are alike.
          `const found = await tools[${JSON.stringify(ws.search)}]({ query: ${JSON.stringify(`${words(n, 2)} ${n}`)} });`,
          "const echoed = await tools.echo({ text: found.items[0].title });",
          "return echoed.content[0].text;",
        ].join("\n");
        return mcpFailure(await call(send, `${mcp}?mode=code`, "execute", { code }), (r) =>
          String((r.structuredContent as { result?: unknown } | undefined)?.result).startsWith(
            "Release notes",
          ),
        );
      },
    },
  ];
}

interface KindTally {
  requests: number;
  errors: number;
  latencies: number[];
}

class Traffic {
  readonly tallies: KindTally[];
  readonly failures = new Map<string, number>();
  private stopped = false;
  private sent = 0;
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly url: string,
    readonly kinds: readonly Kind[],
  ) {
    this.tallies = kinds.map(() => ({ requests: 0, errors: 0, latencies: [] }));
  }

  get requests(): number {
    return this.tallies.reduce((sum, t) => sum + t.requests, 0);
  }

  get errors(): number {
    return this.tallies.reduce((sum, t) => sum + t.errors, 0);
  }

  /** Each connection sends the next call of the kinds' rotation, back to back until stop(). */
  start(count: number): void {
    for (let connection = 0; connection < count; connection++) this.running.push(this.loop(client(this.url)));
  }

  /** Every kind `rounds` times per connection, not counted. */
  async warm(rounds: number): Promise<void> {
    const send = client(this.url);
    for (let n = 0; n < rounds; n++)
      for (const kind of this.kinds) {
        const failure = await kind.send(send, n);
        if (failure !== null) throw new Error(`warm-up, ${kind.name}: ${failure}`);
      }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  private async loop(first: Send): Promise<void> {
    let send = first;
    while (!this.stopped) {
      // One count across the connections: every call's arguments are its own.
      const n = this.sent++;
      const index = n % this.kinds.length;
      const kind = this.kinds[index];
      const tally = this.tallies[index];
      if (kind === undefined || tally === undefined) continue;
      const t0 = performance.now();
      let failure: string | null;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        failure = await Promise.race([
          kind.send(send, n),
          new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve(`no answer in ${CALL_TIMEOUT_MS / 1000} s`), CALL_TIMEOUT_MS);
          }),
        ]);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      } finally {
        clearTimeout(timer);
      }
      // A call left hanging holds its connection: the next call opens another.
      if (failure?.startsWith("no answer") === true) send = client(this.url);
      tally.latencies.push(performance.now() - t0);
      tally.requests++;
      if (failure !== null) {
        tally.errors++;
        const key = `${kind.name}: ${failure}`;
        this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      }
    }
  }
}

async function run(server: DevServer): Promise<void> {
  const ws = await setUp(server);
  console.log(
    `workspace ${ws.uid}: ${ws.search} behind the ~2 KB adapter, 4 plugins (one a tool), the request hook`,
  );

  const traffic = new Traffic(server.url, callKinds(ws));
  await traffic.warm(3);
  const inspectors = await openInspectors(server);
  const probes = {
    api: await WorkerProbe.of(inspectors.api),
    gateway: await WorkerProbe.of(inspectors.gateway),
  };
  const found = { api: await probes.api.wasm.find(), gateway: await probes.gateway.wasm.find() };
  console.log(`wasm memories after the warm-up: api Worker ${found.api}, gateway ${found.gateway}`);
  if (snapshotDir !== "") {
    mkdirSync(snapshotDir, { recursive: true });
    console.log(`snapshots in ${snapshotDir}`);
  }
  const early =
    snapshotDir === ""
      ? null
      : await takeSnapshot(inspectors.gateway, join(snapshotDir, "gateway-early.heapsnapshot"));

  console.log(
    `\n${connections} connections for ${minutes} min, the ${traffic.kinds.length} kinds of call in turn; a sample every ${sampleSeconds} s`,
  );
  console.log(
    `MB = 2^20 bytes; sum = V8 total + wasm; buffers = array buffers outside the wasm memory and external strings (not in sum)\n`,
  );
  console.log(header());
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + minutes * 60_000;
  let lastRequests = 0;
  let lastAt = started;
  const take = async (): Promise<void> => {
    const [api_, gateway] = [await probes.api.sample(), await probes.gateway.sample()];
    const now = performance.now();
    const sample: Sample = {
      seconds: (now - started) / 1000,
      api: api_,
      gateway,
      requests: traffic.requests,
      errors: traffic.errors,
    };
    samples.push(sample);
    const rate = ((sample.requests - lastRequests) * 1000) / Math.max(1, now - lastAt);
    [lastRequests, lastAt] = [sample.requests, now];
    console.log(row(sample, rate));
  };
  await take();
  traffic.start(connections);
  try {
    for (let next = started + sampleSeconds * 1000; next <= end + 1; next += sampleSeconds * 1000) {
      await sleep(Math.max(0, next - performance.now()));
      await take();
    }
  } finally {
    await traffic.stop();
  }

  const late =
    early === null
      ? null
      : await takeSnapshot(inspectors.gateway, join(snapshotDir, "gateway-late.heapsnapshot"));
  // After the run, with every call finished: what a full collection leaves.
  const [apiCollected, gatewayCollected] = [
    await probes.api.wasm.find().then(() => probes.api.sample()),
    await probes.gateway.wasm.find().then(() => probes.gateway.sample()),
  ];
  for (const inspector of [inspectors.api, inspectors.gateway]) inspector.close();

  const seconds = (samples.at(-1)?.seconds ?? 0) || 1;
  console.log(
    `\n${traffic.requests} calls in ${(seconds / 60).toFixed(1)} min (${(traffic.requests / seconds).toFixed(0)}/s), ${traffic.errors} failed`,
  );
  console.log(
    `${"kind".padEnd(30)} ${"calls".padStart(8)} ${"errors".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`,
  );
  traffic.kinds.forEach((kind, i) => {
    const tally = traffic.tallies[i] ?? { requests: 0, errors: 0, latencies: [] };
    const s = summarize(tally.latencies);
    console.log(
      `${kind.name.padEnd(30)} ${String(tally.requests).padStart(8)} ${String(tally.errors).padStart(7)} ${ms(s.p50).padStart(8)} ${ms(s.p99).padStart(8)}`,
    );
  });
  for (const [failure, count] of [...traffic.failures].slice(0, 10)) console.log(`  ${count}× ${failure}`);
  console.log(
    `after the run and a full collection: ${live("api Worker", apiCollected)}; ${live("gateway", gatewayCollected)}`,
  );
  if (early !== null && late !== null) printGrowth(early, late);
  console.log("");
  for (const line of verdict("gateway", samples, (s) => s.gateway)) console.log(line);
  for (const line of verdict("api Worker", samples, (s) => s.api)) console.log(line);
  if (traffic.errors > 0) process.exitCode = 1;
}

console.log(`starting wrangler dev on 127.0.0.1:${port} (upstream ${port + 1}, provider ${port + 2}) …`);
await withBenchServer("soak", port, run);
