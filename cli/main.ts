#!/usr/bin/env -S node --experimental-strip-types --no-warnings=ExperimentalWarning
// `rayrun`: the command-line client of the Rayrun Hooks API. Users run it through cli/rayrun.mjs
// (the package's bin), which runs the bundle of cli/bin.ts.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
// The API's own scope list. That module imports nothing, which Node's type stripping needs:
// shared/ code elsewhere imports without file extensions.
import { SCOPES } from "../shared/auth/principal.ts";
import { CliError } from "./client.ts";
import { approvals } from "./commands/approvals.ts";
import { config } from "./commands/config.ts";
import { files } from "./commands/files.ts";
import { hooks } from "./commands/hooks.ts";
import { logs } from "./commands/logs.ts";
import { providers } from "./commands/providers.ts";
import { secrets } from "./commands/secrets.ts";
import { keys, login, services, tools, use, workspaces } from "./commands/tenancy.ts";
import { resolveSettings } from "./config.ts";
import { completionCommand } from "./completion.ts";
import { CommandContext } from "./context.ts";
import { createOutput, reportError } from "./output.ts";
import { didYouMean } from "./suggest.ts";

type Command = (ctx: CommandContext) => Promise<void>;

const COMMANDS: Record<string, Command | Record<string, Command>> = {
  login,
  use,
  workspaces,
  keys,
  services,
  tools,
  hooks,
  files,
  completion: completionCommand(() => ({ commands: COMMANDS, options: OPTIONS })),
  config,
  secrets,
  providers,
  approvals,
  logs,
};

const USAGE = `rayrun — Rayrun Hooks CLI

Usage: rayrun <command> [subcommand] [args] [options]

  login --url URL --key KEY          check and save the API location and key
  use <workspace>                    select the workspace for later commands
  workspaces create <name> | show
  keys create --scopes a,b --actor NAME | list | revoke <id>
                                     (scopes: ${SCOPES.join(", ")})
  services add <name> <url> [--payload-capture] | list | refresh <svc> | delete <svc>
  tools list | accept --tool T
  hooks show|history|revisions|export|types|reset --tool T
  hooks save --tool T --file F [--config FILE] [--note TEXT]
                                     (saves even when it does not compile; warns with line:column)
  hooks diff <version> --tool T      hooks restore <version> --tool T
  hooks test --tool T --stage before|after [--arguments JSON] [--result JSON] [--version N]
  hooks deploy <version> --tool T --channel shadow|active
  hooks rollback <revision> --tool T [--channel active|shadow]
  hooks logs [--tool T] [--stage S] [--outcome O] [--channel C] [--kind K] [--mode direct|code]
             [--revision R] [--request-id ID] [--since ISO] [--until ISO] [--limit N] [--cursor C]
                                     (--request-id ID: that request and the calls made under it)
  files list [--kind lib|plugin]     files show|history|revisions|export|reset|logs <path>
  files save <path> --file F [--config FILE] [--note TEXT]
  files diff|restore <path> <version>
  files test <path> [--export NAME | --hook NAME] [--input JSON] [--host-calls FILE] [--version N]
                                     (FILE: a JSON list of mocks for rayrun.lambda and rayrun.model)
  files deploy <path> <version> --channel shadow|active
  files rollback <path> <revision> [--channel active|shadow]
  (a path is lib/<name>.ts|.js or plugins/<name>.ts|.js)
  config show | edit ($VISUAL or $EDITOR) | set <dotted.path> <value> | unset <dotted.path>
                                     (a value is JSON when it parses as JSON, else a string)
  secrets list | set <name> (value from stdin) | delete <name>
  providers                          LLM providers and the SDK base URLs to use
  approvals list [--status pending|approved|denied|used|expired] | approve <id> | deny <id>
  logs [--follow] [the filters of hooks logs]   every hook's runs; --follow until Ctrl-C
  completion bash|zsh|fish           a shell completion script: source <(rayrun completion bash)

Options: --url (RAYRUN_URL), --key (RAYRUN_KEY), --workspace (RAYRUN_WORKSPACE), --json
  --yes  confirm a destructive command (delete, revoke, reset): asked on a terminal, else required
Errors print the API's problem code and, under it, each refused field and each line:column.
Exit codes: 0 ok, 1 API or connection error (its code is printed), 2 usage error.`;

const OPTIONS = {
  url: { type: "string" },
  key: { type: "string" },
  workspace: { type: "string" },
  tool: { type: "string" },
  file: { type: "string" },
  config: { type: "string" },
  note: { type: "string" },
  stage: { type: "string" },
  arguments: { type: "string" },
  input: { type: "string" },
  "host-calls": { type: "string" },
  export: { type: "string" },
  hook: { type: "string" },
  result: { type: "string" },
  version: { type: "string" },
  channel: { type: "string" },
  outcome: { type: "string" },
  revision: { type: "string" },
  "request-id": { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  kind: { type: "string" },
  mode: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  scopes: { type: "string" },
  actor: { type: "string" },
  status: { type: "string" },
  follow: { type: "boolean", short: "f" },
  "payload-capture": { type: "boolean" },
  json: { type: "boolean" },
  yes: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * parseArgs reads `-5` as an option; no option of the CLI is a digit, so a dash followed by a digit is
 * a value (`config set pre_llm_hook.timeout_ms -5`, `--limit -1`). Such tokens are hidden from it as
 * this prefix, which no argument starts with, and restored after.
 */
const NUMBER_MARK = "\u0000number:";
const hideNumbers = (argv: readonly string[]) => argv.map((a) => (/^-\d/.test(a) ? `${NUMBER_MARK}${a}` : a));
const restore = (value: string) => (value.startsWith(NUMBER_MARK) ? value.slice(NUMBER_MARK.length) : value);

/** parseArgs's refusal in the CLI's words: an unknown option named, with the option meant when one is close. */
function usageOf(error: Error): string {
  const unknown = /^Unknown option '([^']*)'/.exec(error.message)?.[1];
  if (unknown === undefined) return restore(error.message);
  const known = Object.entries(OPTIONS).flatMap(([name, o]) =>
    ["short" in o ? [`-${o.short}`] : [], `--${name}`].flat(),
  );
  const hint = unknown.startsWith("--")
    ? didYouMean(unknown, known)
    : `; an argument that starts with "-" goes after "--", as in: rayrun … -- ${unknown}`;
  return `unknown option ${unknown}${hint}`;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: hideNumbers(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`rayrun: ${usageOf(error as Error)} (see rayrun --help)\n`);
    return 2;
  }
  const values = Object.fromEntries(
    Object.entries(parsed.values).map(([name, value]) => [
      name,
      typeof value === "string" ? restore(value) : value,
    ]),
  ) as typeof parsed.values;
  const positionals = parsed.positionals.map(restore);
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const entry = COMMANDS[name];
  let command: Command | undefined;
  let args = rest;
  let unknown = "";
  if (typeof entry === "function") command = entry;
  else if (entry) {
    const [sub, ...subArgs] = rest;
    const subs = Object.keys(entry);
    if (sub === undefined) unknown = `${name} needs a subcommand: ${subs.join(", ")}`;
    else {
      command = entry[sub];
      unknown = `unknown command: ${name} ${sub}${didYouMean(sub, subs)}`;
    }
    args = subArgs;
  } else unknown = `unknown command: ${name}${didYouMean(name, Object.keys(COMMANDS))}`;
  if (!command) {
    process.stderr.write(`rayrun: ${unknown} (see rayrun --help)\n`);
    return 2;
  }
  const out = createOutput(values.json === true);
  const ctx = new CommandContext(resolveSettings(values), out, values, args);
  try {
    await command(ctx);
    // A command that completed but reports a failure (a failed test run) set the exit code itself.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return reportError(out, error);
  }
}

// Run as a file of its own, it runs the sources (Node 22.6+): the package's bin was this file once,
// and npx keeps the links it made then. In the bundle (cli/bin.ts runs `main`), import.meta.url is
// the bundle's, hence the check that this is still the .ts file.
const self = fileURLToPath(import.meta.url);
const invoked = process.argv[1] ? realpathSync(process.argv[1]) : "";
if (self.endsWith(".ts") && invoked === self) {
  // npx keeps the bin links it made on its first run in its cache: one made then still points here.
  const npxCache = /^(.*\/_npx\/[^/]+)\/node_modules\/\.bin\//.exec(process.argv[1] ?? "")?.[1];
  if (npxCache !== undefined) {
    process.stderr.write(
      `rayrun: npx ran the CLI's TypeScript sources through a link it kept from an older version, which is slow; rm -rf ${npxCache} lets it link the bundled CLI\n`,
    );
  }
  process.exitCode = await main(process.argv.slice(2));
}
