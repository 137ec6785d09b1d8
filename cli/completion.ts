// `rayrun completion bash|zsh|fish`: a completion script generated from the
// command table and the option list, so a new command or option completes
// without touching this file.
import { RUN_MODES, RUN_OUTCOMES } from "../shared/db/run-types.ts";
import { CliError } from "./client.ts";
import type { CommandContext } from "./context.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

export interface CompletionTable {
  /** A command is a function, or an object of subcommands. */
  commands: Readonly<Record<string, object>>;
  options: Readonly<Record<string, { type: "string" | "boolean"; short?: string }>>;
}

/** Values worth offering after an option, beyond file names after the FILE_OPTIONS. */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  channel: ["active", "shadow"],
  stage: ["before", "after"],
  mode: RUN_MODES,
  outcome: RUN_OUTCOMES,
};
const FILE_OPTIONS = ["file", "config", "host-calls"];
/** Positional values of commands without subcommands. */
const ARGUMENTS: Readonly<Record<string, readonly string[]>> = { completion: SHELLS };

interface Model {
  commands: string[];
  /** Subcommands (or fixed first arguments) per command, for those that have any. */
  subs: [string, string[]][];
  flags: string[];
  valued: string[];
  short: [string, string][];
}

// Names go into shell source unquoted: only plain words are offered.
const WORD = /^[a-z][a-z0-9.:-]*$/;

function model(table: CompletionTable): Model {
  const commands = Object.keys(table.commands).filter((c) => WORD.test(c));
  const subs = commands.flatMap((c): [string, string[]][] => {
    const entry = table.commands[c];
    const names = typeof entry === "function" ? (ARGUMENTS[c] ?? []) : Object.keys(entry ?? {});
    const words = names.filter((n) => WORD.test(n));
    return words.length > 0 ? [[c, words]] : [];
  });
  const options = Object.entries(table.options).filter(([name]) => WORD.test(name));
  return {
    commands,
    subs,
    flags: options.map(([name]) => name),
    valued: options.filter(([, o]) => o.type === "string").map(([name]) => name),
    short: options.flatMap(([name, o]): [string, string][] => (o.short ? [[o.short, name]] : [])),
  };
}

const long = (names: readonly string[]) => names.map((n) => `--${n}`).join(" ");

function bash(m: Model): string {
  const valueCases = Object.entries(VALUES).map(
    ([name, values]) => `    --${name}) COMPREPLY=($(compgen -W "${values.join(" ")}" -- "$cur")); return ;;`,
  );
  const subCases = m.subs.map(
    ([c, words]) => `        ${c}) COMPREPLY=($(compgen -W "${words.join(" ")}" -- "$cur")) ;;`,
  );
  return `# rayrun completion for bash. Load it with: source <(rayrun completion bash)
_rayrun() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local valued=" ${long(m.valued)} "
  case "$prev" in
    ${FILE_OPTIONS.map((o) => `--${o}`).join("|")}) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return ;;
${valueCases.join("\n")}
  esac
  if [[ "$valued" == *" $prev "* ]]; then COMPREPLY=(); return; fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${long(m.flags)} ${m.short.map(([s]) => `-${s}`).join(" ")}" -- "$cur"))
    return
  fi
  local args=() i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ "$w" == -* ]]; then
      if [[ "$valued" == *" $w "* ]]; then ((i++)); fi
      continue
    fi
    args+=("$w")
  done
  case "\${#args[@]}" in
    0) COMPREPLY=($(compgen -W "${m.commands.join(" ")}" -- "$cur")) ;;
    1)
      case "\${args[0]}" in
${subCases.join("\n")}
      esac
      ;;
  esac
}
complete -F _rayrun rayrun
`;
}

function zsh(m: Model): string {
  const valueCases = Object.entries(VALUES).map(
    ([name, values]) => `    --${name}) compadd -- ${values.join(" ")}; return ;;`,
  );
  const subCases = m.subs.map(([c, words]) => `        ${c}) compadd -- ${words.join(" ")} ;;`);
  return `#compdef rayrun
# rayrun completion for zsh. Load it after compinit with: source <(rayrun completion zsh)
_rayrun() {
  local -a valued args
  valued=(${long(m.valued)})
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} i w
  case $prev in
    ${FILE_OPTIONS.map((o) => `--${o}`).join("|")}) _files; return ;;
${valueCases.join("\n")}
  esac
  if (( \${valued[(Ie)$prev]} )); then return 1; fi
  if [[ $cur == -* ]]; then
    compadd -- ${long(m.flags)} ${m.short.map(([s]) => `-${s}`).join(" ")}
    return
  fi
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    if [[ $w == -* ]]; then
      if (( \${valued[(Ie)$w]} )); then (( i++ )); fi
      continue
    fi
    args+=("$w")
  done
  case \${#args} in
    0) compadd -- ${m.commands.join(" ")} ;;
    1)
      case \${args[1]} in
${subCases.join("\n")}
      esac
      ;;
  esac
}
if [ "$funcstack[1]" = "_rayrun" ]; then
  _rayrun "$@"
else
  compdef _rayrun rayrun
fi
`;
}

function fish(m: Model): string {
  const all = m.subs.flatMap(([, words]) => words);
  const lines = [
    "# rayrun completion for fish. Load it with: rayrun completion fish | source",
    "complete -c rayrun -f",
    `complete -c rayrun -n __fish_use_subcommand -a '${m.commands.join(" ")}'`,
    ...m.subs.map(
      ([c, words]) =>
        `complete -c rayrun -n '__fish_seen_subcommand_from ${c}; and not __fish_seen_subcommand_from ${[...new Set(all)].join(" ")}' -a '${words.join(" ")}'`,
    ),
    ...m.flags.map((name) => {
      const short = m.short.find(([, n]) => n === name)?.[0];
      const head = `complete -c rayrun${short ? ` -s ${short}` : ""} -l ${name}`;
      if (FILE_OPTIONS.includes(name)) return `${head} -r -F`;
      const values = VALUES[name];
      if (values) return `${head} -x -a '${values.join(" ")}'`;
      return m.valued.includes(name) ? `${head} -x` : head;
    }),
  ];
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, table: CompletionTable): string {
  const m = model(table);
  return shell === "bash" ? bash(m) : shell === "zsh" ? zsh(m) : fish(m);
}

/** The `completion` command over a table read when it runs (the table includes this command). */
export function completionCommand(table: () => CompletionTable) {
  return async (ctx: CommandContext): Promise<void> => {
    const shell = ctx.arg(0, "shell");
    if (!(SHELLS as readonly string[]).includes(shell)) {
      throw new CliError(`no completion for ${shell}; choose one of ${SHELLS.join(", ")}`, "usage");
    }
    process.stdout.write(completionScript(shell as Shell, table()));
  };
}
