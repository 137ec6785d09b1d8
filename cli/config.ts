// Where the CLI reads its settings: flags, then environment, then the file
// written by `rayrun login` / `rayrun use`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface StoredConfig {
  url?: string;
  key?: string;
  workspace?: string;
}

export const configPath = (): string =>
  process.env.RAYRUN_CONFIG ??
  join(process.env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "rayrun", "config.json");

export function readConfig(): StoredConfig {
  try {
    return JSON.parse(readFileSync(configPath(), "utf8")) as StoredConfig;
  } catch {
    return {};
  }
}

export function writeConfig(update: StoredConfig): string {
  const path = configPath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ ...readConfig(), ...update }, null, 2)}\n`, { mode: 0o600 });
  return path;
}

export interface Settings {
  url: string;
  key: string | undefined;
  workspace: string | undefined;
}

// An empty variable counts as unset, as shells commonly export them.
const env = (name: string) => process.env[name] || undefined;

export function resolveSettings(flags: { url?: string; key?: string; workspace?: string }): Settings {
  const stored = readConfig();
  return {
    url: flags.url ?? env("RAYRUN_URL") ?? stored.url ?? "http://localhost:8787",
    key: flags.key ?? env("RAYRUN_KEY") ?? stored.key,
    workspace: flags.workspace ?? env("RAYRUN_WORKSPACE") ?? stored.workspace,
  };
}
