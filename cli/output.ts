// Human output by default, JSON for machines (`--json`), progress on stderr.

/** Renders rows as an aligned text table; columns are [header, value-of-row]. */
export function table<T>(rows: readonly T[], columns: readonly [string, (row: T) => unknown][]): string {
  const cells = rows.map((row) => columns.map(([, get]) => text(get(row))));
  const widths = columns.map(([header], i) =>
    Math.max(header.length, ...cells.map((r) => r[i]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(columns.map(([header]) => header.toUpperCase())), ...cells.map(line)].join("\n");
}

function text(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export interface Output {
  json: boolean;
  /** Prints `data` as JSON with --json, otherwise the human rendering. */
  print(data: unknown, human?: () => string): void;
  /** Progress for long work: stderr only, silent with --json. */
  progress(message: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    print(data, human) {
      if (json || !human) process.stdout.write(`${JSON.stringify(data, null, json ? 0 : 2)}\n`);
      else process.stdout.write(`${human()}\n`);
    },
    progress(message) {
      if (!json) process.stderr.write(`… ${message}\n`);
    },
  };
}
