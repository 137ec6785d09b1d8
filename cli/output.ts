// Human output by default, JSON for machines (`--json`); progress and errors
// on stderr.
import type { CliError, SourceDiagnostic } from "./client.ts";
import { withSpinner } from "./progress.ts";

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

/** Renders labelled values one per line, the labels aligned: `label  value`. */
export function keyValue(pairs: readonly (readonly [string, unknown])[]): string {
  const width = Math.max(0, ...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${label.padEnd(width)}  ${text(value)}`.trimEnd()).join("\n");
}

/** `3:14 message (code)`: where a compile problem is, in the order editors and compilers print it. */
export const diagnosticLine = (d: SourceDiagnostic): string =>
  `${d.line}:${d.column} ${d.message}${d.code ? ` (${d.code})` : ""}`;

/**
 * Fuel in whole units with comma groups: `411,961 fuel`. Not the locale's grouping, which in many
 * locales is a dot and makes 411.961 read as a fraction.
 */
export function fuel(units: number): string {
  return `${String(Math.round(units)).replace(/\B(?=(\d{3})+$)/g, ",")} fuel`;
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
  /**
   * Runs long work (compiles, deploys, upstream calls) under a spinner on
   * stderr when it is a terminal; piped, redirected or with --json, nothing is shown.
   */
  busy<T>(message: string, work: () => Promise<T>): Promise<T>;
  /** A warning the user must see (a saved draft that does not compile): stderr, always. */
  warn(lines: readonly string[]): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    print(data, human) {
      if (json || !human) process.stdout.write(`${JSON.stringify(data, null, json ? 0 : 2)}\n`);
      else process.stdout.write(`${human()}\n`);
    },
    busy(message, work) {
      return json ? work() : withSpinner(message, work);
    },
    warn(lines) {
      if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`);
    },
  };
}

/**
 * How a failed command reports: one line `rayrun: code: message` on stderr
 * (usage errors without the code), then each refused field and each compile
 * problem indented under it; with --json, the same as an `error` object on stdout.
 * Returns the exit code: 2 for usage errors, 1 otherwise.
 */
export function reportError(out: Output, error: CliError): number {
  const { code, message, status, errors, diagnostics } = error;
  if (out.json) {
    const body = {
      code,
      message,
      status,
      ...(errors.length > 0 ? { errors } : {}),
      ...(diagnostics.length > 0 ? { diagnostics } : {}),
    };
    process.stdout.write(`${JSON.stringify({ error: body })}\n`);
  }
  const lines = [
    code === "usage" ? `rayrun: ${message}` : `rayrun: ${code}: ${message}`,
    ...errors.map((e) => `  ${e.path && e.path !== "/" ? `${e.path}: ` : ""}${e.message}`),
    ...diagnostics.map((d) => `  ${diagnosticLine(d)}`),
  ];
  process.stderr.write(`${lines.join("\n")}\n`);
  return code === "usage" ? 2 : 1;
}
