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

export interface CliOptions {
  /** Written to the CLI's stdin (with `tty`, typed into the terminal). */
  input?: string;
  /**
   * Runs the CLI on a pseudo-terminal (util-linux `script`), as a user at a shell would:
   * stdin, stdout and stderr are all the terminal, so `stdout` holds both streams.
   */
  tty?: boolean;
}

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The package's bin, as `npm link` installs it: the launcher, which runs the bundle the global setup
 * built (cli/dist/rayrun.mjs), so the tests check what users run.
 */
export const RAYRUN = "cli/rayrun.mjs";

/** Runs the real `rayrun` executable with its own config file, against the test server. */
export function cli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): CliRun {
  const configDir = mkdtempSync(join(tmpdir(), "rayrun-cfg-"));
  const command = [process.execPath, RAYRUN, ...args];
  const [file, argv]: [string, string[]] = options.tty
    ? ["script", ["-qec", command.map(quote).join(" "), "/dev/null"]]
    : [process.execPath, command.slice(1)];
  const result = spawnSync(file, argv, {
    encoding: "utf8",
    ...(options.input === undefined ? {} : { input: options.input }),
    env: {
      ...process.env,
      RAYRUN_URL: inject("serverUrl"),
      RAYRUN_KEY: inject("bootstrapKey"),
      RAYRUN_CONFIG: join(configDir, "config.json"),
      // `script` runs the command with $SHELL -c.
      ...(options.tty ? { SHELL: "/bin/sh" } : {}),
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
