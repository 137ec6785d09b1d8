// What test/scripts/deploy.node.test.ts needs from Node: the deploy script's
// plan, a run of the script itself, and the files it leaves. The root
// TypeScript project checks test/ against the Workers' types, which have no
// `node:` modules, so the test reaches them through this file (typed by
// deploy-run.d.mts).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export { deploySteps, splitArgs, WORKERS } from "../../scripts/deploy.mjs";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Runs `node scripts/deploy.mjs ...args` from the repository root; resolves with its exit code and output. */
export function runDeploy(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/deploy.mjs", ...args], {
      cwd: REPO,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

export const tempDir = () => mkdtempSync(join(tmpdir(), "rayrun-deploy-test-"));
export const removeDir = (dir) => rmSync(dir, { recursive: true, force: true });

/** A file's modification time and text, or null when it does not exist. */
export function readFile(path) {
  if (!existsSync(path)) return null;
  return { mtimeMs: statSync(path).mtimeMs, text: readFileSync(path, "utf8") };
}
