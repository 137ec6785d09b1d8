// Problems with an LLM request, addressed by JSON pointer so a client (or a hook
// author) can find the exact field. Zod's issues are rewritten into plain
// sentences here because they reach people who never saw the schema.
import type { z } from "zod";
import type { Json, JsonObject } from "../json";

export interface RequestProblem {
  /** JSON pointer (RFC 6901) into the request as its sender wrote it. */
  path: string;
  message: string;
}

/** A JSON pointer from path segments, escaping `~` and `/` as RFC 6901 requires. */
export const pointer = (...segments: readonly PropertyKey[]): string =>
  segments.map((s) => `/${String(s).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");

const ARTICLES: Record<string, string> = {
  array: "an array",
  int: "an integer",
  object: "an object",
  record: "a JSON object",
};

const describeType = (expected: string) => ARTICLES[expected] ?? `a ${expected}`;

const depth = (issues: readonly z.core.$ZodIssue[]) => Math.max(...issues.map((i) => i.path.length));

function collect(issue: z.core.$ZodIssue, base: readonly PropertyKey[], out: RequestProblem[]): void {
  const path = [...base, ...issue.path];
  switch (issue.code) {
    case "invalid_union": {
      // A union reports every branch. The branch that got deepest into the value
      // is the one the sender meant (an array of blocks, not a string); when none
      // got past the value itself, the union's own message says what fits.
      const branches = issue.errors.filter((branch) => branch.length > 0 && depth(branch) > 0);
      const best = branches.toSorted((a, b) => depth(b) - depth(a))[0];
      if (best) for (const inner of best) collect(inner, path, out);
      else out.push({ path: pointer(...path), message: issue.message });
      return;
    }
    case "unrecognized_keys":
      for (const key of issue.keys)
        out.push({ path: pointer(...path, key), message: `unknown field "${key}"` });
      return;
    case "invalid_type":
      out.push({
        path: pointer(...path),
        message: issue.input === undefined ? "is required" : `must be ${describeType(issue.expected)}`,
      });
      return;
    default:
      out.push({ path: pointer(...path), message: issue.message });
  }
}

/** Zod issues as problems; parse with `reportInput: true` so missing fields read "is required". */
export function zodProblems(
  issues: readonly z.core.$ZodIssue[],
  /** Where the parsed value sits in the request, when it is a part of it. */
  base: readonly PropertyKey[] = [],
): RequestProblem[] {
  const out: RequestProblem[] = [];
  for (const issue of issues) collect(issue, base, out);
  return out;
}

/**
 * Rewrites neutral-request paths into paths of the provider body they came from.
 * `origins` maps a neutral pointer to a provider pointer; the longest mapped
 * prefix wins and the rest of the path is kept (field names below it agree).
 */
export function relocate(
  problems: readonly RequestProblem[],
  origins: ReadonlyMap<string, string>,
): RequestProblem[] {
  return problems.map(({ path, message }) => {
    for (let prefix = path; ; prefix = prefix.slice(0, prefix.lastIndexOf("/"))) {
      const origin = origins.get(prefix);
      if (origin !== undefined) return { path: origin + path.slice(prefix.length), message };
      if (prefix === "") return { path, message };
    }
  });
}

/**
 * Keys of `value` outside `known`. Null and empty-list values count as absent:
 * SDKs echo response messages back with `refusal: null`, `annotations: []`, and
 * refusing those would break the ordinary agent loop.
 */
export function unsupportedKeys(value: JsonObject, known: readonly string[], at: string): RequestProblem[] {
  return Object.entries(value)
    .filter(([key, v]) => !known.includes(key) && !isAbsent(v))
    .map(([key]) => ({ path: `${at}${pointer(key)}`, message: `"${key}" is not supported` }));
}

export const isAbsent = (value: Json | undefined): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0);

/** An object of the defined fields only (JSON has no `undefined`). */
export const compact = (fields: Record<string, Json | undefined>): JsonObject => {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
};
