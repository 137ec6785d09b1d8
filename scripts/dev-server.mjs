// Starts the local system: D1 migrations, both product Workers under one
// `wrangler dev` (the api Worker serves the port), the demo upstream MCP
// server on the next port and the demo LLM provider (echo) on the one after.
// Used by `npm start` and by the CLI's Node tests.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };

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

async function waitFor(url, child, seconds) {
  for (let i = 0; i < seconds * 4; i++) {
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
 * `observability: false` turns off wrangler's local trace collector and data explorer: the collector
 * streams a trace of every invocation (each request, Durable Object call and outbound fetch) to
 * another Worker, which costs a few ms of CPU per request on a 2-core machine. `logLevel: "warn"`
 * drops wrangler's request log lines, each of which its proxy posts to wrangler's Node process.
 * Benchmarks and tests use both; `npm start` keeps wrangler's defaults (request logs, local explorer).
 * `envFiles` are loaded after `devVarsPath`, for every product Worker (`--var` reaches only the first
 * config's Worker): the bench sets BENCH_RELAY_URL for the gateway this way.
 * @param {{ port: number, stateDir: string, devVarsPath: string, stdio?: "inherit" | "ignore", observability?: boolean, logLevel?: "info" | "warn", envFiles?: string[] }} options
 */
export async function startDevServer({
  port,
  stateDir,
  devVarsPath,
  stdio = "inherit",
  observability = true,
  logLevel = "info",
  envFiles = [],
}) {
  const env = observability
    ? wranglerEnv
    : { ...wranglerEnv, X_LOCAL_OBSERVABILITY: "false", X_LOCAL_EXPLORER: "false" };
  const { key, created } = ensureBootstrapKey(devVarsPath);
  const migrate = spawnSync(
    "npx",
    [
      "wrangler",
      "d1",
      "migrations",
      "apply",
      "rayrun",
      "--local",
      "--persist-to",
      stateDir,
      "-c",
      "workers/api/wrangler.jsonc",
    ],
    { stdio, env: { ...wranglerEnv, CI: "true" } },
  );
  if (migrate.status !== 0) throw new Error("applying local D1 migrations failed");

  const common = [
    "--persist-to",
    stateDir,
    "--show-interactive-dev-session=false",
    "--ip",
    "127.0.0.1",
    "--log-level",
    logLevel,
  ];
  // A dev-only Worker on its own port: its wrangler config, and offset from `port` (inspector 1000 above).
  const devWorker = (config, offset) =>
    spawn(
      "npx",
      [
        "wrangler",
        "dev",
        "-c",
        config,
        "--port",
        String(port + offset),
        "--inspector-port",
        String(port + 1000 + offset),
        ...common,
      ],
      { stdio: ["ignore", stdio, stdio], env, detached: true },
    );
  const upstream = devWorker("dev/upstream/wrangler.jsonc", 1);
  const provider = devWorker("dev/provider/wrangler.jsonc", 2);
  const product = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      "workers/api/wrangler.jsonc",
      "-c",
      "workers/gateway/wrangler.jsonc",
      "--port",
      String(port),
      "--env-file",
      devVarsPath,
      "--inspector-port",
      String(port + 1000),
      ...envFiles.flatMap((file) => ["--env-file", file]),
      ...common,
    ],
    { stdio: ["ignore", stdio, stdio], env, detached: true },
  );
  const children = [upstream, provider, product];
  // Each wrangler runs in its own process group so stop() takes workerd down with it.
  const stop = () => {
    for (const child of children) {
      try {
        if (child.pid) process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  };
  const url = `http://127.0.0.1:${port}`;
  const upstreamUrl = `http://127.0.0.1:${port + 1}`;
  // The provider's root: each `/<id>` under it is a separate fake (OpenAI base URL `<id>/v1`, Anthropic `<id>`).
  const providerUrl = `http://127.0.0.1:${port + 2}`;
  try {
    await waitFor(`${url}/v1/limits`, product, 120);
    await waitFor(`${upstreamUrl}/demo/_calls`, upstream, 120);
    await waitFor(`${providerUrl}/demo/_received`, provider, 120);
  } catch (error) {
    stop();
    throw error;
  }
  return { url, upstreamUrl, providerUrl, key, createdKey: created, children, stop };
}
