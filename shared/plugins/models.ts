// Models' real output limits, for clamping what `chat.params` returns as
// `maxOutputTokens`; an unknown or absent model clamps to a configurable
// default. The table holds a few well-known models by family name; dated
// snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) match their
// family by the longest prefix followed by `-`.

import type { ModelOutputLimits } from "../config/schema";

/** Largest output, in tokens, of well-known models (the providers' documented maxima). */
export const MODEL_OUTPUT_LIMITS: Readonly<Record<string, number>> = {
  "gpt-4o": 16_384,
  "gpt-4o-mini": 16_384,
  "gpt-4.1": 32_768,
  "gpt-4.1-mini": 32_768,
  "gpt-4.1-nano": 32_768,
  "gpt-5": 128_000,
  "gpt-5-mini": 128_000,
  o3: 100_000,
  "o4-mini": 100_000,
  "claude-3-5-haiku": 8_192,
  "claude-3-7-sonnet": 64_000,
  "claude-sonnet-4": 64_000,
  "claude-sonnet-4-5": 64_000,
  "claude-opus-4": 32_000,
  "claude-opus-4-1": 32_000,
  "claude-haiku-4-5": 64_000,
};

/** The ceiling for a model the table does not know, or for a request without a model. */
export const DEFAULT_MODEL_OUTPUT_LIMIT = 32_768;

/** The table entry for `model`: exact, else the longest family name it extends with `-…`. */
export function knownOutputLimit(
  model: string,
  table: Readonly<Record<string, number>> = MODEL_OUTPUT_LIMITS,
): number | null {
  const exact = table[model];
  if (exact !== undefined && Object.hasOwn(table, model)) return exact;
  let best: string | null = null;
  for (const family of Object.keys(table)) {
    if (model.startsWith(`${family}-`) && (best === null || family.length > best.length)) best = family;
  }
  return best === null ? null : (table[best] ?? null);
}

/**
 * The output ceiling for `model` (undefined: the request names none): the
 * workspace's own entries (config `modelOutputLimits`) first, then the table,
 * then the workspace's default, then ours.
 */
export function modelOutputLimit(model: string | undefined, limits: ModelOutputLimits = {}): number {
  const known =
    model === undefined
      ? null
      : ((limits.models === undefined ? null : knownOutputLimit(model, limits.models)) ??
        knownOutputLimit(model));
  return known ?? limits.default ?? DEFAULT_MODEL_OUTPUT_LIMIT;
}
