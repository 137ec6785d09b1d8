import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, in the shape the caller asserts on. */
  // oxlint-disable-next-line typescript/no-unnecessary-type-parameters -- the caller names the shape
  json<T = Record<string, unknown>>(): T;
}

/** Runs the real `rayrun` executable with its own config file, against the test server. */
export function cli(args: string[], env: Record<string, string> = {}): CliRun {
  const configDir = mkdtempSync(join(tmpdir(), "rayrun-cfg-"));
  const result = spawnSync(process.execPath, ["--experimental-strip-types", "cli/main.ts", ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      RAYRUN_URL: inject("serverUrl"),
      RAYRUN_KEY: inject("bootstrapKey"),
      RAYRUN_CONFIG: join(configDir, "config.json"),
      ...env,
    },
  });
  return {
    code: result.status ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    json: () => JSON.parse(result.stdout),
  };
}
