// The machine's Node 20, for the tests of what must work on a machine that has nothing newer:
// `npm start` and `npm test` through scripts/with-node.mjs, and the `rayrun` CLI. CI's machines
// have it (Debian's nodejs), so a machine without it fails these tests rather than skipping them.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The first `node` on PATH, or in the usual system places, whose version is 20.x. */
export function findNode20() {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/local/bin", "/bin"];
  const seen = [];
  for (const dir of dirs) {
    const node = join(dir, "node");
    if (dir === "" || seen.includes(node) || !existsSync(node)) continue;
    const run = spawnSync(node, ["--version"], { encoding: "utf8" });
    seen.push(`${node} (${run.status === 0 ? run.stdout.trim() : "does not run"})`);
    if (run.status === 0 && run.stdout.startsWith("v20.")) return node;
  }
  throw new Error(
    `no Node 20 on this machine (found: ${seen.join(", ") || "none"}); these tests need one: apt-get install nodejs`,
  );
}

/** A PATH on which `node` is the given old one: its folder and the system's, none of the newer Nodes. */
export function oldNodePath(node) {
  return [...new Set([dirname(node), "/usr/bin", "/bin"])].join(delimiter);
}

/** Runs `file args` in the repository with PATH set to `path`; extra variables in `env`. */
export function runWith(file, args, path, env = {}) {
  const run = spawnSync(file, args, {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, ...env, PATH: path },
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
