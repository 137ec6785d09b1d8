// Starts the local system: D1 migrations, both product Workers under one
// `wrangler dev` (the api Worker serves the port), the demo upstream MCP
// server on the next port and the demo LLM provider (echo) on the one after.
// Used by `npm start`, the benches and the CLI's Node tests.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ensureMeteredWasm } from "./meter-wasm.mjs";

/** The repository root: the product Workers' configs and the paths in them are relative to it. */
const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const API_CONFIG = "wrangler.toml";
const GATEWAY_CONFIG = "workers/gateway/wrangler.toml";

// The simulation's vars come from startDevServer's options alone: wrangler lets the environment
// override the vars a config declares, so the shell's are left out of every wrangler's.
const SIM_VARS = new Set([
  "SIM_HOME_RTT_MS",
  "SIM_COLOS",
  "SIM_COLO",
  "LEASE_MS",
  "SIM_UNSAFE_SKIP_LEASE_WAIT",
]);
// The bootstrap key likewise: the server's is the one in the .dev.vars it was started with (and
// returns), which a RAYRUN_BOOTSTRAP_KEY in the environment would silently override.
const shellEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !SIM_VARS.has(name) && name !== "RAYRUN_BOOTSTRAP_KEY"),
);

// Without CLOUDFLARE_CF_FETCH_ENABLED=false every miniflare instance downloads the `Request.cf`
// object from workers.cloudflare.com at start and, offline, prints a stack trace; its built-in
// placeholder is all local development needs. The user's environment comes after it, so
// CLOUDFLARE_CF_FETCH_ENABLED=true still wins.
/** The built web console; the api Worker serves console/dist as its static assets. */
const CONSOLE_INDEX = "console/dist/index.html";
const wranglerEnv = { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...shellEnv, WRANGLER_SEND_METRICS: "false" };

/** How long wrangler gets to shut down its workerd after SIGTERM before its process group is killed. */
const STOP_GRACE_MS = 5000;

/** The bootstrap key from a .dev.vars file, writing a random one when the file is absent. */
export function ensureBootstrapKey(devVarsPath) {
  if (existsSync(devVarsPath)) {
    const match = /^RAYRUN_BOOTSTRAP_KEY\s*=\s*"?([^"\n]+)"?/m.exec(readFileSync(devVarsPath, "utf8"));
    if (match?.[1]) return { key: match[1], created: false };
    throw new Error(`${devVarsPath} exists but has no RAYRUN_BOOTSTRAP_KEY; add one or delete the file.`);
  }
  const key = `rr_boot_${randomBytes(24).toString("base64url")}`;
  writeFileSync(devVarsPath, `RAYRUN_BOOTSTRAP_KEY="${key}"\n`, { mode: 0o600 });
  return { key, created: true };
}

/** Every port the dev server listens on for base port `port`: each Worker's, and its inspector 1000 above. */
export function devServerPorts(port) {
  const workers = [
    { offset: 0, use: "API and gateway" },
    { offset: 1, use: "demo upstream MCP server" },
    { offset: 2, use: "demo LLM provider" },
  ];
  return workers.flatMap(({ offset, use }) => [
    { port: port + offset, use },
    { port: port + 1000 + offset, use: `${use} inspector` },
  ]);
}

/** Thrown by startDevServer before anything starts when a port it needs is taken. */
export class PortInUseError extends Error {
  /** @param {{ port: number, use: string }[]} ports */
  constructor(ports) {
    const list = ports.map(({ port, use }) => `${port} (${use})`).join(", ");
    super(`${ports.length === 1 ? "port" : "ports"} ${list} already in use`);
    this.name = "PortInUseError";
    this.ports = ports;
  }
}

/** Thrown by startDevServer before anything starts when another live dev server uses `stateDir`. */
export class StateInUseError extends Error {
  constructor(stateDir, pid) {
    super(`${stateDir} is in use by another dev server (process ${pid})`);
    this.name = "StateInUseError";
    this.stateDir = stateDir;
    this.pid = pid;
  }
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return error.code === "EPERM";
  }
}

/**
 * Claims `stateDir` for this process with a pid file, returning its release. A second dev server
 * on the same state (on another port) would open the same SQLite files; a file left by a process
 * that is gone is taken over.
 */
function claimState(stateDir) {
  mkdirSync(stateDir, { recursive: true });
  const lock = join(stateDir, "dev-server.pid");
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      return () => rmSync(lock, { force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const owner = Number.parseInt(readFileSync(lock, "utf8"), 10);
    if (Number.isInteger(owner) && processAlive(owner)) throw new StateInUseError(stateDir, owner);
    rmSync(lock, { force: true });
  }
}

/**
 * Whether nothing listens on `port`, on any address: binding the unspecified address fails while
 * any other socket (127.0.0.1, ::1, 0.0.0.0) holds the port, so this also catches servers that
 * `localhost` would reach instead of wrangler's 127.0.0.1.
 */
async function isPortFree(port) {
  const server = createServer();
  try {
    server.listen({ port, exclusive: true });
    await once(server, "listening");
    return true;
  } catch (error) {
    if (error.code === "EADDRINUSE") return false;
    throw error;
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}

async function waitFor(url, child, seconds, signal) {
  for (let i = 0; i < seconds * 4; i++) {
    signal?.throwIfAborted();
    if (child.exitCode !== null)
      throw new Error(`server exited with code ${child.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer within ${seconds}s`);
}

/**
 * A child's exit code, once it has exited: also when that was before this was asked, whose "exit"
 * event `once` would wait for in vain (the migrations can end while the console still builds).
 */
async function exitCode(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const [code] = await once(child, "exit", { signal });
  return code;
}

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Vars every local run sets: the MCP endpoint answers only under the loopback names, so a web page
 * cannot reach it by pointing its own host name at this machine (DNS rebinding).
 */
function localVars(stateDir) {
  const path = join(stateDir, "local.env");
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(path, 'MCP_ALLOWED_HOSTS="localhost,127.0.0.1,[::1]"\n');
  return path;
}

/** The keys of a wrangler config whose values are paths, relative to the config's folder. */
const PATH_KEYS = /^(\s*(?:main|migrations_dir|directory|base_dir|tsconfig)\s*=\s*)"([^"]*)"/;

/**
 * A product Worker's config as a copy in another folder can use: its paths made absolute.
 * The copy is made from the committed file on every start, so it follows that file's edits.
 */
function relocatedConfig(config) {
  const from = join(REPO, dirname(config));
  const text = readFileSync(join(REPO, config), "utf8");
  return text
    .split("\n")
    .map((line) => {
      const path = PATH_KEYS.exec(line);
      if (path === null || isAbsolute(path[2])) return line;
      return `${path[1]}${JSON.stringify(resolvePath(from, path[2]))}${line.slice(path[0].length)}`;
    })
    .join("\n");
}

const GENERATED = "# Written by scripts/dev-server.mjs for one local run; a copy, never committed.\n";

/**
 * `text` (a wrangler config) with `vars` added to its [vars] table, or to a new one at its end.
 * They go in the config rather than an env file: wrangler takes from env files only the keys a
 * config declares when it has a [secrets] table, as both product Workers' configs do.
 */
function withVars(text, vars) {
  const lines = Object.entries(vars).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  const table = /^\s*\[vars\]\s*(#.*)?$/m;
  if (table.test(text)) return text.replace(table, (header) => [header, ...lines].join("\n"));
  return [text, "", "[vars]", ...lines, ""].join("\n");
}

/**
 * Gateway colo `n`: the gateway's config, with SIM_COLO so that its /__sim/stats says which colo it
 * is, and from 2 up under the name `rayrun-gateway-<n>`. Only the top-level `name` (before the first
 * table) is the Worker's; the tables' `name`s (rate limits, bindings) stay.
 */
function coloConfig(n, vars) {
  let topLevel = true;
  const text = relocatedConfig(GATEWAY_CONFIG)
    .split("\n")
    .map((line) => {
      if (/^\s*\[/.test(line)) topLevel = false;
      return n > 1 && topLevel && /^\s*name\s*=/.test(line) ? `name = "rayrun-gateway-${n}"` : line;
    })
    .join("\n");
  return GENERATED + withVars(text, { ...vars, SIM_COLO: String(n) });
}

/**
 * The api Worker's config for a simulated run: /__sim/* reaches the Worker before the console's
 * assets, and each gateway colo from 2 up is a service binding GATEWAY_<n> (TOML lets an array
 * of tables continue after other tables).
 */
function apiConfig(colos, vars) {
  const text = relocatedConfig(API_CONFIG).replace(/^(\s*run_worker_first\s*=\s*\[)/m, '$1"/__sim/*", ');
  const bindings = [];
  for (let n = 2; n <= colos; n++)
    bindings.push(`\n[[services]]\nbinding = "GATEWAY_${n}"\nservice = "rayrun-gateway-${n}"\n`);
  return `${GENERATED}${withVars(text, vars)}${bindings.join("")}`;
}

/** The most gateway colos one wrangler dev runs: each is a whole gateway Worker in the same workerd. */
const MAX_COLOS = 16;

/** Throws before anything starts when the simulation's options make no sense. */
function checkSimOptions(simHomeRttMs, colos, leaseMs) {
  if (!Number.isInteger(colos) || colos < 1 || colos > MAX_COLOS)
    throw new RangeError(`colos (SIM_COLOS) must be a whole number from 1 to ${MAX_COLOS}, not ${colos}`);
  if (simHomeRttMs !== undefined && !(Number.isFinite(simHomeRttMs) && simHomeRttMs >= 0))
    throw new RangeError(
      `simHomeRttMs (SIM_HOME_RTT_MS) must be a number of milliseconds ≥ 0, not ${simHomeRttMs}`,
    );
  if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs > 0))
    throw new RangeError(`leaseMs (LEASE_MS) must be a whole number of milliseconds > 0, not ${leaseMs}`);
}

/**
 * The product Workers' configs, the api Worker's first (it serves the port). Without the simulated
 * distance (docs/architecture.md, "Distance, simulated") or the lease options, the committed ones;
 * with any of them, copies written into `stateDir`/sim: the api Worker's and one per gateway colo,
 * each with its vars. The lease options go to the api Worker alone: it hosts the WorkspaceObject,
 * which grants the leases and decides how long a write waits for them.
 */
function productConfigs(stateDir, { simHomeRttMs, colos, leaseMs, unsafeSkipLeaseWait }) {
  const leaseVars = {
    ...(leaseMs === undefined ? {} : { LEASE_MS: String(leaseMs) }),
    ...(unsafeSkipLeaseWait ? { SIM_UNSAFE_SKIP_LEASE_WAIT: "1" } : {}),
  };
  if (simHomeRttMs === undefined && colos === 1 && Object.keys(leaseVars).length === 0)
    return [API_CONFIG, GATEWAY_CONFIG];
  const dir = join(stateDir, "sim");
  mkdirSync(dir, { recursive: true });
  const vars = simHomeRttMs === undefined ? {} : { SIM_HOME_RTT_MS: String(simHomeRttMs) };
  const write = (name, text) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const configs = [write("api.toml", apiConfig(colos, { ...vars, ...leaseVars }))];
  for (let n = 1; n <= colos; n++) configs.push(write(`gateway-${n}.toml`, coloConfig(n, vars)));
  return configs;
}

/**
 * `observability: false` turns off wrangler's local trace collector and data explorer: the collector
 * streams a trace of every invocation (each request, Durable Object call and outbound fetch) to
 * another Worker, which costs a few ms of CPU per request on a 2-core machine. `logLevel: "warn"`
 * drops wrangler's request log lines, each of which its proxy posts to wrangler's Node process.
 * Benchmarks and tests use both; `npm start` keeps wrangler's defaults (request logs, local explorer).
 * `envFiles` are loaded after `devVarsPath`, for every product Worker (`--var` reaches only the first
 * config's Worker): the bench sets BENCH_RELAY_URL for the gateway this way.
 * Aborting `signal` while it starts stops whatever was started and rejects.
 * `stop()` resolves once every process it started has exited.
 * `buildConsole: "always"` rebuilds the web console (console/dist, served as the api Worker's static
 * assets) before wrangler starts; "if-missing", the default, builds it only when there is no build yet,
 * so servers started side by side (tests) never rebuild a directory another one is serving.
 * `simHomeRttMs` (milliseconds, 0 included; undefined: off) sets SIM_HOME_RTT_MS on every product
 * Worker: each of their awaits on the WorkspaceObject, D1 or R2 first waits that long, and
 * `GET /__sim/stats` answers. `colos` (default 1) runs the gateway as that many Workers,
 * rayrun-gateway, rayrun-gateway-2, …, each its own isolate with its own caches; the api Worker
 * hands /mcp/*, /llm/* and /__sim/* to colo n when a request carries `x-rayrun-colo: n`.
 * `leaseMs` sets LEASE_MS, the WorkspaceObject's lease length (KNOBS.leaseMs when absent): a test
 * that makes many writes under traffic waits out a shorter lease per write. `unsafeSkipLeaseWait`
 * sets SIM_UNSAFE_SKIP_LEASE_WAIT=1, which lets writes return before older leases end: it breaks
 * the guarantee leases give, for a test that shows its check catches exactly that (never deployable).
 * `onOutput(step, chunk, stream)`, when given, receives what each process it starts writes (in place of
 * `stdio`), `step` naming the process: "console" (the Vite build), "migrations", "upstream", "provider"
 * or "workers". `onProgress(event)` hears "checked" once the ports and the state directory are known to
 * be free (nothing has started yet), then each step's name as it completes: the console built, the
 * migrations applied, a Worker answering. An error from a step carries that step's name as `step`.
 * @param {{ port: number, stateDir: string, devVarsPath: string, stdio?: "inherit" | "ignore", onOutput?: (step: string, chunk: Buffer, stream: "stdout" | "stderr") => void, onProgress?: (event: string) => void, observability?: boolean, logLevel?: "info" | "warn", envFiles?: string[], buildConsole?: "always" | "if-missing", simHomeRttMs?: number, colos?: number, leaseMs?: number, unsafeSkipLeaseWait?: boolean, signal?: AbortSignal }} options
 */
export async function startDevServer({
  port,
  stateDir,
  devVarsPath,
  stdio = "inherit",
  onOutput,
  onProgress = () => {},
  observability = true,
  logLevel = "info",
  envFiles = [],
  buildConsole = "if-missing",
  simHomeRttMs,
  colos = 1,
  leaseMs,
  unsafeSkipLeaseWait = false,
  signal,
}) {
  const ports = devServerPorts(port);
  const invalid = ports.find((p) => !Number.isInteger(p.port) || p.port < 1 || p.port > 65_535);
  if (invalid) throw new RangeError(`port ${invalid.port} (${invalid.use}) is not a valid TCP port`);
  checkSimOptions(simHomeRttMs, colos, leaseMs);
  // Checked up front: wrangler only fails on a taken port after its slow start-up, and a port
  // already answering /v1/limits (another `npm start`) would pass the readiness checks below.
  const taken = [];
  for (const p of ports) if (!(await isPortFree(p.port))) taken.push(p);
  if (taken.length > 0) throw new PortInUseError(taken);
  // Both Workers import the sandbox's metered wasm; `npm ci` writes it, unless run with --ignore-scripts.
  ensureMeteredWasm();

  const env = observability
    ? wranglerEnv
    : { ...wranglerEnv, X_LOCAL_OBSERVABILITY: "false", X_LOCAL_EXPLORER: "false" };
  const release = claimState(stateDir);
  onProgress("checked");
  const children = [];
  /** Spawns one step's process, its output to `onOutput` when given. */
  const run = (step, command, args, options) => {
    const output = onOutput ? "pipe" : stdio;
    const child = spawn(command, args, { stdio: ["ignore", output, output], ...options });
    if (onOutput) {
      child.stdout.on("data", (chunk) => onOutput(step, chunk, "stdout"));
      child.stderr.on("data", (chunk) => onOutput(step, chunk, "stderr"));
    }
    return child;
  };
  // Each wrangler runs in its own process group so stop() takes workerd down with it.
  const wrangler = (step, args, options) => {
    const child = run(step, "npx", ["wrangler", ...args], { detached: true, ...options });
    children.push(child);
    return child;
  };
  /** Runs `work`, marking the error it throws as `step`'s, and tells onProgress when it is done. */
  const step = async (name, work) => {
    try {
      await work();
    } catch (error) {
      if (error instanceof Error && !signal?.aborted) error.step = name;
      throw error;
    }
    onProgress(name);
  };
  const stop = async () => {
    const groups = children.map((child) => child.pid).filter((pid) => pid !== undefined);
    for (const pid of groups) signalGroup(pid, "SIGTERM");
    const deadline = Date.now() + STOP_GRACE_MS;
    while (groups.some(groupAlive) && Date.now() < deadline) await sleep(100);
    for (const pid of groups.filter(groupAlive)) signalGroup(pid, "SIGKILL");
    release();
  };

  try {
    const { key, created } = ensureBootstrapKey(devVarsPath);
    // Written once this process owns `stateDir`: wrangler reloads when a config it serves changes.
    const configs = productConfigs(stateDir, { simHomeRttMs, colos, leaseMs, unsafeSkipLeaseWait });
    // One writer per state directory: every workerd opens the SQLite files under its
    // --persist-to (cache, D1, Durable Objects) and two processes creating them at once fail
    // with SQLITE_BUSY. The migrations finish before the product Workers open `stateDir`, and
    // the demo Workers, which store nothing, get directories of their own.
    const migrate = wrangler(
      "migrations",
      ["d1", "migrations", "apply", "rayrun", "--local", "--persist-to", stateDir, "-c", "wrangler.toml"],
      { env: { ...wranglerEnv, CI: "true" } },
    );
    const common = ["--show-interactive-dev-session=false", "--ip", "127.0.0.1", "--log-level", logLevel];
    // A dev-only Worker on its own port: its wrangler config, and offset from `port` (inspector 1000 above).
    const devWorker = (name, offset) =>
      wrangler(
        name,
        [
          "dev",
          "-c",
          `dev/${name}/wrangler.jsonc`,
          "--port",
          String(port + offset),
          "--inspector-port",
          String(port + 1000 + offset),
          "--persist-to",
          join(stateDir, "demo", name),
          ...common,
        ],
        { env },
      );
    // The demo Workers start beside the migrations: they share no state with them.
    const upstream = devWorker("upstream", 1);
    const provider = devWorker("provider", 2);
    if (buildConsole === "always" || !existsSync(CONSOLE_INDEX)) {
      // Built beside the migrations; wrangler refuses an `[assets]` directory that does not exist.
      await step("console", async () => {
        const build = run("console", "npx", [
          "vite",
          "build",
          "-c",
          "console/vite.config.ts",
          "--logLevel",
          "warn",
        ]);
        const built = await exitCode(build, signal);
        if (built !== 0) throw new Error("building the web console (console/) failed");
      });
    }
    await step("migrations", async () => {
      const status = await exitCode(migrate, signal);
      if (status !== 0) throw new Error("applying local D1 migrations failed");
    });
    // stop() signals process groups by id: the finished migration's id may be reused later.
    children.splice(children.indexOf(migrate), 1);
    const workers = wrangler(
      "workers",
      [
        "dev",
        ...configs.flatMap((config) => ["-c", config]),
        "--port",
        String(port),
        "--env-file",
        devVarsPath,
        "--inspector-port",
        String(port + 1000),
        ...[localVars(stateDir), ...envFiles].flatMap((file) => ["--env-file", file]),
        "--persist-to",
        stateDir,
        ...common,
      ],
      { env },
    );
    const url = `http://127.0.0.1:${port}`;
    const upstreamUrl = `http://127.0.0.1:${port + 1}`;
    // The provider's root: each `/<id>` under it is a separate fake (OpenAI base URL `<id>/v1`, Anthropic `<id>`).
    const providerUrl = `http://127.0.0.1:${port + 2}`;
    await step("workers", () => waitFor(`${url}/v1/limits`, workers, 120, signal));
    await step("upstream", () => waitFor(`${upstreamUrl}/demo/_calls`, upstream, 120, signal));
    await step("provider", () => waitFor(`${providerUrl}/demo/_received`, provider, 120, signal));
    return {
      url,
      upstreamUrl,
      providerUrl,
      key,
      createdKey: created,
      children: [upstream, provider, workers],
      /** The same processes by step name, as onOutput names them. */
      processes: { upstream, provider, workers },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
