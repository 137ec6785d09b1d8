// Host side of `context.log.*`. The prelude checks each entry against the log
// limits and keeps accepted ones until the phase ends (prelude/bridge.js); the
// host takes them then, and hears of a refusal at once. A violation is
// sticky: the hook sees a thrown error, and even if it catches it the
// invocation fails with hook_log_limit.
import type { Json } from "../../json";
import type { LogEntry, LogLevel } from "../types";

const LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

const isEntry = (value: unknown): value is [LogLevel, string] | [LogLevel, string, Json] =>
  Array.isArray(value) &&
  (value.length === 2 || value.length === 3) &&
  LEVELS.includes(String(value[0])) &&
  typeof value[1] === "string";

export class LogCollector {
  readonly entries: LogEntry[] = [];
  violation: string | null = null;

  /** Remembers the first refusal the prelude reported. */
  refuse(reason: string): void {
    this.violation ??= reason;
  }

  /** Takes the entries of a phase: the prelude's comma-separated `[level, message, data?]` arrays. */
  accept(text: string): void {
    const parsed = JSON.parse(`[${text}]`) as unknown[];
    for (const item of parsed) {
      if (!isEntry(item)) throw new Error("sandbox: malformed log entry from the prelude");
      const entry: LogEntry = { level: item[0], message: item[1] };
      if (item.length === 3) entry.data = item[2];
      this.entries.push(entry);
    }
  }
}
