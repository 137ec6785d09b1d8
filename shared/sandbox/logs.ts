// Host side of `context.log.*`: collects entries and enforces the log limits.
// A violation is sticky: the hook sees a thrown error, and even if it catches
// it the invocation fails with hook_log_limit.
import { utf8Bytes, type Json } from "../json";
import { LIMITS } from "../limits";
import type { LogEntry, LogLevel } from "./types";

const LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

export class LogCollector {
  readonly entries: LogEntry[] = [];
  violation: string | null = null;

  /** Returns "" when accepted, otherwise the reason (also remembered). */
  add(level: string, message: string, dataText: string): string {
    if (this.violation !== null) return this.violation;
    if (!LEVELS.includes(level)) return "unknown log level";
    if (this.entries.length >= LIMITS.logEntries) {
      return this.refuse(`more than ${LIMITS.logEntries} log entries`);
    }
    if (message.length > LIMITS.logMessageChars) {
      return this.refuse(`log message longer than ${LIMITS.logMessageChars} characters`);
    }
    const entry: LogEntry = { level: level as LogLevel, message };
    if (dataText !== "") {
      // "L" means the prelude stopped serialising past the limit already.
      const json = dataText.startsWith("J") ? dataText.slice(1) : null;
      const bytes = json === null ? Infinity : utf8Bytes(json);
      if (json === null || bytes > LIMITS.logDataBytes) {
        return this.refuse(`log data larger than ${LIMITS.logDataBytes} bytes of JSON`);
      }
      entry.data = JSON.parse(json) as Json;
    }
    this.entries.push(entry);
    return "";
  }

  private refuse(reason: string): string {
    this.violation = reason;
    return reason;
  }
}
