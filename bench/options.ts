// Command-line options of the benches: `--name value`, or a flag's presence.

/** The value after `--name`, or `fallback`. */
export function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}
