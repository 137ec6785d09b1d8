// Bounds the captured details of one run before they are stored.
import { utf8Bytes } from "../json";
import { KNOBS } from "../knobs";
import type { RunDetails } from "../db/run-types";

/** Largest JSON text of one record's stored details (KNOBS.logDetailsBytes). */
export const DETAILS_MAX_BYTES = KNOBS.logDetailsBytes;

/** The JSON size of `value`; Infinity when it cannot be serialised. */
function jsonBytes(value: unknown): number {
  try {
    return utf8Bytes(JSON.stringify(value));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The key of the marker that stands in for a payload that cannot be serialised. */
export const UNSERIALISABLE_KEY = "rayrun/unserialisable";

/** What stands in for a payload JSON.stringify refuses (too deep for its stack, a cycle, a bigint), and why. */
function unserialisable(value: unknown): { [UNSERIALISABLE_KEY]: string } | null {
  try {
    JSON.stringify(value);
    return null;
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : "it cannot be serialised";
    return { [UNSERIALISABLE_KEY]: `not stored, ${why}; the call itself was not affected` };
  }
}

/** Details with every payload that cannot be serialised on its own replaced by its marker. */
function serialisable(details: RunDetails): RunDetails {
  const out: RunDetails = { ...details };
  for (const field of ["arguments", "result"] as const) {
    const marker = field in out ? unserialisable(out[field]) : null;
    if (marker !== null) out[field] = marker;
  }
  if (out.logs) {
    out.logs = out.logs.map((entry) => {
      const marker = unserialisable(entry.data);
      return marker === null ? entry : { ...entry, data: marker };
    });
  }
  return out;
}

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * `details` as stored: unchanged when its JSON fits `maxBytes`. Otherwise a
 * payload that cannot be serialised at all is replaced by a marker;
 * then texts are shortened, then `result` and `arguments` dropped, then log
 * entries' data and finally log entries themselves from the end, until it
 * fits. What was cut is named in `truncated`.
 */
export function boundDetails(given: RunDetails, maxBytes: number = DETAILS_MAX_BYTES): RunDetails {
  if (jsonBytes(given) <= maxBytes) return given;
  const details = serialisable(given);
  if (jsonBytes(details) <= maxBytes) return details;
  const omitted: string[] = [];
  let logsDropped = 0;
  const out: RunDetails = { ...details, logs: details.logs?.map((entry) => ({ ...entry })) };
  for (const field of ["reason", "message", "error"] as const) {
    const text = out[field];
    if (text !== undefined && text.length > KNOBS.logDetailTextChars[field]) {
      out[field] = clip(text, KNOBS.logDetailTextChars[field]);
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
