// Bounds the captured details of one run before they are stored.
import { utf8Bytes } from "../json";
import type { RunDetails } from "./types";

/** Largest JSON text of one record's stored details. */
export const DETAILS_MAX_BYTES = 16 * 1024;

/** Longest stored texts, in characters (at most 3 bytes each, so together they fit the bound). */
const TEXT_MAX_CHARS = { reason: 256, message: 1024, error: 2048 } as const;

const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value));

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * `details` as stored: unchanged when its JSON fits `maxBytes`; otherwise texts are
 * shortened, then `result` and `arguments` dropped, then log entries' data and
 * finally log entries themselves from the end, until it fits. What was cut is
 * named in `truncated`.
 */
export function boundDetails(details: RunDetails, maxBytes: number = DETAILS_MAX_BYTES): RunDetails {
  if (jsonBytes(details) <= maxBytes) return details;
  const omitted: string[] = [];
  let logsDropped = 0;
  const out: RunDetails = { ...details, logs: details.logs?.map((entry) => ({ ...entry })) };
  for (const field of ["reason", "message", "error"] as const) {
    const text = out[field];
    if (text !== undefined && text.length > TEXT_MAX_CHARS[field]) {
      out[field] = clip(text, TEXT_MAX_CHARS[field]);
      omitted.push(field);
    }
  }
  const fits = () => jsonBytes({ ...out, truncated: { omitted, logsDropped } }) <= maxBytes;
  for (const field of ["result", "arguments"] as const) {
    if (fits()) break;
    if (field in out) {
      delete out[field];
      omitted.push(field);
    }
  }
  const logs = out.logs ?? [];
  for (let i = logs.length - 1; i >= 0 && !fits(); i--) {
    const entry = logs[i];
    if (entry?.data !== undefined) {
      delete entry.data;
      if (!omitted.includes("logs.data")) omitted.push("logs.data");
    }
  }
  while (logs.length > 0 && !fits()) {
    logs.pop();
    logsDropped++;
  }
  if (out.logs === undefined) delete out.logs;
  out.truncated = { omitted, logsDropped };
  return out;
}
