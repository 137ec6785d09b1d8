// Installing the CLI as README and docs/cli.md say: `npm install -g .` (or `npm link`) from the
// checkout puts a `rayrun` on PATH that works from any directory, on Node 24 and on Node 20, and
// whose shell completion registers that command.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { findNode20, oldNodePath } from "../scripts/old-node.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const prefix = mkdtempSync(join(tmpdir(), "rayrun-prefix-"));
const elsewhere = mkdtempSync(join(tmpdir(), "rayrun-elsewhere-"));
const bin = join(prefix, "bin");
afterAll(() => {
  rmSync(prefix, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

/** Runs `command` in a directory outside the checkout, with the installed bin first on PATH. */
function outside(command: string, args: string[], path = `${bin}${delimiter}${process.env.PATH ?? ""}`) {
  const run = spawnSync(command, args, {
    cwd: elsewhere,
    encoding: "utf8",
    env: {
      ...process.env,
      PATH: path,
      RAYRUN_URL: inject("serverUrl"),
      RAYRUN_KEY: inject("bootstrapKey"),
      RAYRUN_CONFIG: join(elsewhere, "config.json"),
    },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  // A global install from the checkout into a prefix of the test's own, as a user's `npm install -g .`.
  const install = spawnSync("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "."], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (install.status !== 0) throw new Error(`npm install -g failed:\n${install.stdout}\n${install.stderr}`);
}, 120_000);

describe("rayrun installed with npm install -g .", () => {
  it("runs from another directory: --help and an API command", () => {
    const help = outside(join(bin, "rayrun"), ["--help"]);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: rayrun <command>");
    const created = outside("rayrun", ["workspaces", "create", "installed-cli", "--json"]);
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "installed-cli" });
  });

  it("runs on Node 20 when that is the only Node on PATH", () => {
    const path = `${bin}${delimiter}${oldNodePath(findNode20())}`;
    expect(outside("node", ["--version"], path).stdout).toMatch(/^v20\./);
    const help = outside("rayrun", ["--help"], path);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toContain("Usage: rayrun <command>");
    const created = outside("rayrun", ["workspaces", "create", "node20-cli", "--json"], path);
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "node20-cli" });
  });

  it("completes the installed command in bash, zsh and fish", () => {
    const bash = outside("bash", ["-c", "source <(rayrun completion bash); complete -p rayrun"]);
    expect(bash.stdout.trim(), bash.stderr).toBe("complete -F _rayrun rayrun");
    // `.ci/run` installs both shells (apt-get install zsh fish).
    const zsh = outside("zsh", [
      "-c",
      "autoload -U compinit && compinit -u && source <(rayrun completion zsh) && print -r -- $_comps[rayrun]",
    ]);
    expect(zsh.stdout.trim(), `zsh: ${zsh.stderr}`).toBe("_rayrun");
    const fish = outside("fish", ["-c", "rayrun completion fish | source; complete -C 'rayrun hoo'"]);
    expect(
      fish.stdout.split("\n").map((line) => line.split("\t")[0]),
      `fish: ${fish.stderr}`,
    ).toEqual(["hooks", ""]);
  });
});
