// Validators for JSON Schemas, cached per isolate. Building one dereferences
// the whole schema, which is far more than a validation costs (~12 µs), so the
// hot path must reuse them.
import { Validator, type Schema } from "@cfworker/json-schema";
import { err, ok, type Result } from "../result";
import { canonicalJson } from "../canonical-json";
import { boundedCache } from "../cache";
import { KNOBS } from "../knobs";
import { schemaDraft } from "./drafts";
import { compileCheck, type Check } from "./quick-check";

export interface ValidationIssue {
  /** JSON Pointer into the validated value ("" for the value itself). */
  path: string;
  message: string;
}

export interface SchemaValidator {
  validate(value: unknown): Result<void, { errors: ValidationIssue[] }>;
}

/** Bounded so that a stream of distinct schemas cannot grow the isolate without limit. */
const cache = boundedCache<string, SchemaValidator>({ entries: KNOBS.validatorCacheEntries });

/**
 * A validator for `schema` in the draft its `$schema` declares (2020-12 when
 * none; see drafts.ts). The cache key is the canonical JSON text itself, which
 * needs no async hashing on the hot path; callers that already hold an
 * immutable id (a schema hash, a revision id) may pass it as `key` instead.
 */
export function getValidator(schema: unknown, key?: string): SchemaValidator {
  let cacheKey = key;
  if (cacheKey === undefined) {
    try {
      cacheKey = canonicalJson(schema);
    } catch (error) {
      // Nested deeper than the stack: such a schema fails every value, uncached.
      return failing(describe(error));
    }
  }
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;
  const validator = buildValidator(schema);
  cache.set(cacheKey, validator);
  return validator;
}

/** For tests: forget every cached validator. */
export function clearValidatorCache(): void {
  cache.clear();
}

export const validatorCacheSize = (): number => cache.size;

function buildValidator(schema: unknown): SchemaValidator {
  if (
    typeof schema !== "boolean" &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    return failing("the schema is neither an object nor a boolean");
  }
  let inner: Validator;
  const { draft } = schemaDraft(schema);
  try {
    // The library annotates schema objects while dereferencing; keep callers' objects untouched.
    inner = new Validator(structuredClone(schema) as Schema | boolean, draft);
  } catch (error) {
    return failing(describe(error));
  }
  // Says only "valid", for schemas within its subset; the library decides the rest (quick-check.ts).
  const quick = compileCheck(schema, draft);
  return {
    validate(value) {
      if (quick !== null && quickSaysValid(quick, value)) return ok(undefined);
      let result;
      try {
        result = inner.validate(value);
      } catch (error) {
        // e.g. an unresolvable `$ref` surfaces only when validation reaches it.
        return err({ errors: [{ path: "", message: `schema error: ${describe(error)}` }] });
      }
      if (result.valid) return ok(undefined);
      return err({
        errors: result.errors.map((unit) => ({
          path: unit.instanceLocation.replace(/^#/, ""),
          message: unit.error,
        })),
      });
    },
  };
}

/** False when the check cannot say (a value nested deeper than the stack): the library decides. */
function quickSaysValid(quick: Check, value: unknown): boolean {
  try {
    return quick(value);
  } catch {
    return false;
  }
}

function failing(message: string): SchemaValidator {
  return { validate: () => err({ errors: [{ path: "", message: `schema error: ${message}` }] }) };
}

// The library appends every known schema URI to some messages; the first line says it all.
const describe = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
