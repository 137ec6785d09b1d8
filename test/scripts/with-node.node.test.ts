// scripts/with-node.mjs, which `npm start` and `npm test` go through: on a machine whose Node is
// older than wrangler accepts, the command runs under Node 24 from .cache/node (installed there
// from the npm registry when missing, as .ci/run's scripts/node-env.sh does), with one line saying so.
import { describe, expect, it } from "vitest";
import { scripts } from "../../package.json";
import { findNode20, oldNodePath, runWith } from "./old-node.mjs";

const LAUNCHER = "scripts/with-node.mjs";

/** Whether `v22.12.0`-style output names a Node wrangler runs on. */
const recent = (version: string) => {
  const [major = 0, minor = 0] = version.trim().replace(/^v/, "").split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 12);
};

describe("with-node.mjs", () => {
  it("runs the command under Node 24 when the only Node on PATH is 20, and says so in one line", () => {
    const node20 = findNode20();
    const path = oldNodePath(node20);
    expect(runWith("node", ["--version"], path).stdout).toMatch(/^v20\./);

    const direct = runWith(node20, [LAUNCHER, "node", "-p", "process.version"], path);
    expect(direct.status, direct.stderr).toBe(0);
    expect(recent(direct.stdout), direct.stdout).toBe(true);
    const lines = direct.stderr.trim().split("\n");
    // A fresh clone installs it first; this machine and CI's already have it (scripts/node-env.sh).
    const said = lines.filter((line) => !line.includes("installing Node 24"));
    expect(said).toEqual([
      expect.stringMatching(
        /^rayrun: Node 20\.\d+\.\d+ is too old for wrangler \(it needs 22\.12 or newer\); using Node 24\.\d+\.\d+ from \.cache\/node$/,
      ),
    ]);

    // What the command starts finds the same Node first on PATH: wrangler under npx does.
    const nested = runWith(node20, [LAUNCHER, "sh", "-c", "node -p process.version"], path);
    expect(nested.status, nested.stderr).toBe(0);
    expect(recent(nested.stdout), nested.stdout).toBe(true);
  });

  it("runs the command as it is under a recent Node, silently, and exits as it did", () => {
    const path = process.env.PATH ?? "";
    const script = "console.log(process.execPath); process.exit(3)";
    const run = runWith(process.execPath, [LAUNCHER, "node", "-e", script], path);
    expect(run.status).toBe(3);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(process.execPath);
  });

  it("is what npm start and npm test run", () => {
    expect(scripts.start).toMatch(/^node scripts\/with-node\.mjs /);
    expect(scripts.test).toMatch(/^node scripts\/with-node\.mjs /);
  });
});
