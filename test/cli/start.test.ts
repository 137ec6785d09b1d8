// `npm start` (scripts/start.mjs) as a developer runs it, with a throw-away
// state directory and .dev.vars so the developer's own are never touched.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { findNode20, oldNodePath } from "../scripts/old-node.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const READY = "Rayrun Hooks console:";

interface Start {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "rayrun-start-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm start` as the test runs it: the script itself, under the test's Node, unless `command` says otherwise. */
function start(
  port: number,
  dir: string,
  env: NodeJS.ProcessEnv = {},
  command: readonly string[] = [process.execPath, "scripts/start.mjs"],
): Start {
  // vitest sets NODE_ENV=test, which alone keeps miniflare from fetching the `cf` object;
  // a developer's shell does not.
  const { NODE_ENV: _, ...shell } = process.env;
  const [file = "", ...args] = command;
  const child = spawn(file, args, {
    cwd: ROOT,
    env: {
      ...shell,
      PORT: String(port),
      RAYRUN_STATE_DIR: join(dir, "state"),
      RAYRUN_DEV_VARS: join(dir, ".dev.vars"),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  // A failed test still stops what it started before its state directory goes.
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await exited;
  });
  return { child, output: () => output, exited };
}

async function listen(port: number): Promise<Server> {
  const server = createServer();
  server.listen({ port, exclusive: true });
  await once(server, "listening");
  return server;
}

async function close(server: Server): Promise<void> {
  await new Promise((resolve) => server.close(resolve));
}

/** A port held by a plain server until the test ends. */
async function holdPort(): Promise<number> {
  const server = await listen(0);
  cleanups.push(() => close(server));
  return (server.address() as { port: number }).port;
}

/** A base port whose six dev-server ports (PORT…PORT+2 and 1000 above) are all free right now. */
async function freeBasePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Clear of the shared servers of the CLI and reliability suites (18000–24002) and below
    // Linux's ephemeral ports (32768 up).
    const base = 25_000 + Math.floor(Math.random() * 6000);
    const servers: Server[] = [];
    try {
      for (const port of [base, base + 1, base + 2, base + 1000, base + 1001, base + 1002])
        servers.push(await listen(port));
      return base;
    } catch {
      // taken: try another base
    } finally {
      await Promise.all(servers.map(close));
    }
  }
  throw new Error("no free base port found");
}

interface Process {
  pid: number;
  ppid: number;
  command: string;
}

/** Live processes (zombies count as gone), from `ps`, which Linux and macOS share. */
function processes(): Process[] {
  return execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .flatMap((line) => {
      const [, pid, ppid, stat, command = ""] = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line) ?? [];
      if (!pid || !ppid || !stat || stat.startsWith("Z")) return [];
      return [{ pid: Number(pid), ppid: Number(ppid), command }];
    });
}

/** Every live descendant of process `root`. */
function descendants(root: number): Process[] {
  const all = processes();
  const found: Process[] = [];
  const family = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (family.has(p.ppid) && !family.has(p.pid)) {
        family.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

function alive(pids: number[]): number[] {
  const live = new Set(processes().map((p) => p.pid));
  return pids.filter((pid) => live.has(pid));
}

async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A stand-in for npx, through which every wrangler process starts: it only records that it was asked. */
function fakeNpx(dir: string): { env: NodeJS.ProcessEnv; calls: string } {
  const calls = join(dir, "npx-calls");
  writeFileSync(join(dir, "npx"), `#!/bin/sh\necho "$@" >> '${calls}'\nexit 1\n`);
  chmodSync(join(dir, "npx"), 0o755);
  return { env: { PATH: `${dir}${delimiter}${process.env.PATH ?? ""}` }, calls };
}

/** A stand-in for npx whose Vite build talks and succeeds, and whose every wrangler talks and fails. */
function talkingNpx(dir: string): NodeJS.ProcessEnv {
  writeFileSync(
    join(dir, "npx"),
    `#!/bin/sh\ncase "$1" in\n  vite) echo "VITE SAYS: PLUGIN_TIMINGS"; exit 0 ;;\n  *) echo "WRANGLER SAYS: $2 $3"; exit 1 ;;\nesac\n`,
  );
  chmodSync(join(dir, "npx"), 0o755);
  return { PATH: `${dir}${delimiter}${process.env.PATH ?? ""}` };
}

describe("npm start", () => {
  // Before: wrangler's "requires Node.js v22" three times and exit 13.
  test("on a machine whose only Node is 20, runs under Node 24 from .cache/node and says so once", async () => {
    const node20 = findNode20();
    const dir = tempDir();
    // Every wrangler starts through npx: this one records the Node it finds, then fails the step.
    const calls = join(dir, "npx-calls");
    writeFileSync(join(dir, "npx"), `#!/bin/sh\nnode -p process.version >> '${calls}'\nexit 1\n`);
    chmodSync(join(dir, "npx"), 0o755);
    const path = `${dir}${delimiter}${oldNodePath(node20)}`;
    const run = start(await freeBasePort(), dir, { PATH: path }, ["npm", "start"]);

    const code = await within(30_000, run.exited, "npm start with a failing wrangler");

    expect(code).not.toBe(0);
    const said = run.output().match(/^rayrun: Node .* too old.*$/gm) ?? [];
    expect(said).toEqual([
      expect.stringMatching(
        /^rayrun: Node 20\.\d+\.\d+ is too old for wrangler .*; using Node 24\.\d+\.\d+ from \.cache\/node$/,
      ),
    ]);
    const versions = readFileSync(calls, "utf8").trim().split("\n");
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(version).toMatch(/^v24\./);
    expect(run.output()).not.toContain("requires Node.js");
  });

  test.each([
    ["the API port", 0],
    ["the demo upstream's port", 1],
    ["the demo provider's port", 2],
    ["the API inspector's port", 1000],
  ])("refuses %s when it is taken, before starting anything", async (_, offset) => {
    const held = await holdPort();
    const dir = tempDir();
    const npx = fakeNpx(dir);
    const run = start(held - offset, dir, npx.env);

    const code = await within(5000, run.exited, "refusing a taken port");

    expect(code).not.toBe(0);
    expect(run.output()).toContain(String(held));
    expect(run.output()).toContain("PORT=");
    expect(run.output().trim().split("\n")).toHaveLength(1);
    expect(run.output()).not.toContain(READY);
    expect(existsSync(npx.calls), "no wrangler process was started").toBe(false);
    expect(existsSync(join(dir, "state"))).toBe(false);
    expect(existsSync(join(dir, ".dev.vars"))).toBe(false);
  });

  test("refuses a state directory another dev server is using", async () => {
    const dir = tempDir();
    const npx = fakeNpx(dir);
    mkdirSync(join(dir, "state"));
    // This test's own process stands in for a live `npm start` holding the state.
    writeFileSync(join(dir, "state", "dev-server.pid"), `${process.pid}\n`);
    const run = start(await freeBasePort(), dir, npx.env);

    const code = await within(5000, run.exited, "refusing a state in use");

    expect(code).not.toBe(0);
    expect(run.output()).toContain(`process ${process.pid}`);
    expect(run.output()).toContain("RAYRUN_STATE_DIR=");
    expect(run.output().trim().split("\n")).toHaveLength(1);
    expect(existsSync(npx.calls), "no wrangler process was started").toBe(false);
    expect(existsSync(join(dir, ".dev.vars"))).toBe(false);
  });

  test("keeps wrangler's and Vite's output back, shows a failed step's, and shows all of it with --verbose", async () => {
    const quietDir = tempDir();
    const quiet = start(await freeBasePort(), quietDir, talkingNpx(quietDir));
    expect(await within(30_000, quiet.exited, "a start whose migrations fail")).toBe(1);
    const lines = quiet.output().trim().split("\n");
    expect(lines.map((line) => line.replace(/ \(\d+\.\d s\)$/, ""))).toEqual([
      expect.stringMatching(/^npm start: starting on port \d+; npm start -- --verbose shows /),
      "npm start: web console built",
      "npm start: applying local D1 migrations failed",
      "WRANGLER SAYS: d1 migrations",
      "(npm start -- --verbose shows all that wrangler and Vite print)",
    ]);

    const verboseDir = tempDir();
    const script = [process.execPath, "scripts/start.mjs", "--verbose"];
    const verbose = start(await freeBasePort(), verboseDir, talkingNpx(verboseDir), script);
    expect(await within(30_000, verbose.exited, "a verbose start whose migrations fail")).toBe(1);
    expect(verbose.output()).toContain("VITE SAYS: PLUGIN_TIMINGS");
    expect(verbose.output()).toContain("WRANGLER SAYS: d1 migrations");
    expect(verbose.output()).toContain("WRANGLER SAYS: dev -c");
    expect(verbose.output()).toContain("npm start: applying local D1 migrations failed");
  });

  // wrangler's own start-up (bundling the Workers, booting workerd) and the demo seeding take about
  // 50 CPU-seconds: around a minute on a 2-core machine, nearer two while other suites share it.
  test("starts on a fresh state without races or offline noise, prints the console and a working sign-in link first, and SIGTERM stops every process", async () => {
    const run = start(await freeBasePort(), tempDir());
    await within(
      150_000,
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (run.output().includes(READY)) resolve();
          else if (run.child.exitCode !== null) reject(new Error(`start exited:\n${run.output()}`));
          else setTimeout(check, 250);
        };
        check();
      }),
      "starting",
    );

    // Before the banner, one line per step: wrangler's and Vite's own output (the migrations'
    // tables, Vite's warnings, wrangler's notes) is kept back without --verbose.
    const before = run
      .output()
      .slice(0, run.output().indexOf(READY))
      .split("\n")
      .filter((line) => line.trim() !== "");
    expect(before.map((line) => line.replace(/ \(\d+\.\d s\)$/, ""))).toEqual([
      expect.stringMatching(/^npm start: starting on port \d+; npm start -- --verbose shows /),
      "npm start: web console built",
      "npm start: local D1 migrations applied",
      "npm start: API and gateway answering (wrangler dev)",
      "npm start: demo upstream MCP server answering",
      "npm start: demo LLM provider answering",
      "npm start: demo workspace seeded",
    ]);

    // The console's address comes first, then a sign-in link that signs the demo admin in, once.
    const banner = run.output().slice(run.output().indexOf(READY)).split("\n");
    const port = /localhost:(\d+)\//.exec(banner[0] ?? "")?.[1];
    expect(banner[0]).toBe(`${READY} http://localhost:${port}/`);
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/`)).text()).toContain('<div id="app">');
    const link = /sign in as the demo workspace's admin .*: (\S+)/.exec(banner[1] ?? "")?.[1] ?? "";
    expect(link).toMatch(new RegExp(`^http://localhost:${port}/sign-in#token=`));
    const signIn = () =>
      fetch(`${base}/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: new URLSearchParams(new URL(link).hash.slice(1)).get("token") }),
      });
    const first = await signIn();
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ user: { name: "demo-admin", role: "admin" } });
    expect(first.headers.get("set-cookie")).toContain("rayrun_session=");
    expect((await signIn()).status).toBe(401);

    expect(run.output()).not.toContain("SQLITE_BUSY");
    expect(run.output()).not.toContain("ENOTFOUND");
    expect(run.output()).not.toMatch(/Unable to fetch the `?Request\.cf/);
    const started = descendants(run.child.pid ?? 0);
    expect(started.filter((p) => p.command.includes("wrangler") && p.command.includes(" dev "))).not.toEqual(
      [],
    );
    expect(started.filter((p) => p.command.includes("workerd"))).not.toEqual([]);

    run.child.kill("SIGTERM");
    expect(await within(15_000, run.exited, "stopping")).toBe(0);
    expect(alive(started.map((p) => p.pid))).toEqual([]);
  }, 180_000);
});
