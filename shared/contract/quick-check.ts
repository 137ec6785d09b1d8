// A quick yes for the schemas tool calls usually carry. @cfworker/json-schema
// interprets a schema on every validation, building a JSON Pointer string and
// a result object per node (~15–30 µs for a small tool call's arguments in
// workerd's profile, and a hooked call validates up to four times). Workers
// cannot run code-generating validators (ajv, schemasafe: no `new Function`),
// and no maintained interpreter without code generation is faster, so this
// file turns a schema made only of the keywords below into nested closures.
//
// It only ever answers "valid": `false` means "ask the library", which stays
// the authority for every error message and for every schema with any other
// keyword ($ref, combinators, format, patternProperties, …), where
// `compileCheck` returns null. Each keyword is read as the library reads it
// (validate.js of @cfworker/json-schema 4.1), and anything read differently —
// a keyword of an unexpected type, draft 4's boolean exclusive bounds — is
// outside the subset. The differential test in
// test/shared/contract/quick-check.test.ts holds the two together.
import { deepCompareStrict, ucs2length, type SchemaDraft } from "@cfworker/json-schema";

export type Check = (value: unknown) => boolean;

/** Keywords that never change whether a value is valid. */
const ANNOTATIONS = new Set([
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

const KEYWORDS = new Set([
  "type",
  "enum",
  "const",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
]);

const TYPE_NAMES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** The library's instance type; undefined for what it refuses to validate (it throws). */
function instanceType(value: unknown): string | undefined {
  switch (typeof value) {
    case "boolean":
    case "number":
    case "string":
      return typeof value;
    case "object":
      return value === null ? "null" : Array.isArray(value) ? "array" : "object";
    default:
      return undefined;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isCount = (value: unknown): value is number => typeof value === "number";

function matchesType(type: string, kind: string, value: unknown): boolean {
  if (type === "integer") return kind === "number" && !((value as number) % 1) && value === value;
  return kind === type;
}

/** Compiles `schema` (draft `draft`), or null when it uses anything outside the subset. */
export function compileCheck(schema: unknown, draft: SchemaDraft): Check | null {
  try {
    return compile(schema, draft);
  } catch {
    // A schema nested deeper than the stack: the library alone, as before.
    return null;
  }
}

function compile(schema: unknown, draft: SchemaDraft): Check | null {
  if (schema === true) return () => true;
  if (schema === false) return () => false;
  if (!isPlainObject(schema)) return null;
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) return null;
  }
  const checks: ((value: unknown, kind: string) => boolean)[] = [];

  const type = schema.type;
  if (type !== undefined) {
    const types = typeof type === "string" ? [type] : type;
    if (!Array.isArray(types) || !types.every((t) => typeof t === "string" && TYPE_NAMES.has(t))) return null;
    const names: string[] = types;
    checks.push((value, kind) => {
      for (const name of names) if (matchesType(name, kind, value)) return true;
      return false;
    });
  }
  for (const keyword of ["enum", "const"] as const) {
    if (schema[keyword] === undefined) continue;
    const allowed = keyword === "enum" ? schema.enum : [schema.const];
    if (!Array.isArray(allowed)) return null;
    const items: unknown[] = allowed;
    checks.push((value, kind) => {
      const deep = kind === "object" || kind === "array";
      for (const item of items) if (deep ? deepCompareStrict(value, item) : item === value) return true;
      return false;
    });
  }

  const object = compileObject(schema, draft);
  if (object === null) return null;
  if (object !== undefined)
    checks.push((value, kind) => kind !== "object" || object(value as Record<string, unknown>));
  const array = compileArray(schema, draft);
  if (array === null) return null;
  if (array !== undefined) checks.push((value, kind) => kind !== "array" || array(value as unknown[]));
  const number = compileNumber(schema, draft);
  if (number === null) return null;
  if (number !== undefined) checks.push((value, kind) => kind !== "number" || number(value as number));
  const string = compileString(schema);
  if (string === null) return null;
  if (string !== undefined) checks.push((value, kind) => kind !== "string" || string(value as string));

  return (value) => {
    const kind = instanceType(value);
    if (kind === undefined) return false;
    for (const check of checks) if (!check(value, kind)) return false;
    return true;
  };
}

/** Undefined when no object keyword is present, null when one is outside the subset. */
function compileObject(
  schema: Record<string, unknown>,
  draft: SchemaDraft,
): ((value: Record<string, unknown>) => boolean) | null | undefined {
  const { required, properties, additionalProperties, minProperties, maxProperties } = schema;
  if (
    required === undefined &&
    properties === undefined &&
    additionalProperties === undefined &&
    minProperties === undefined &&
    maxProperties === undefined
  )
    return undefined;
  if (required !== undefined && !(Array.isArray(required) && required.every((k) => typeof k === "string")))
    return null;
  if (minProperties !== undefined && !isCount(minProperties)) return null;
  if (maxProperties !== undefined && !isCount(maxProperties)) return null;
  if (properties !== undefined && !isPlainObject(properties)) return null;
  const named: [string, Check][] = [];
  for (const [key, sub] of Object.entries(properties ?? {})) {
    const check = compile(sub, draft);
    if (check === null) return null;
    named.push([key, check]);
  }
  const namedKeys = new Set(named.map(([key]) => key));
  const extra = additionalProperties === undefined ? undefined : compile(additionalProperties, draft);
  if (extra === null) return null;
  const keys = required ?? [];
  return (value) => {
    for (const key of keys) if (!Object.hasOwn(value, key)) return false;
    if (minProperties !== undefined || maxProperties !== undefined) {
      const count = Object.keys(value).length;
      if (
        (minProperties !== undefined && count < minProperties) ||
        (maxProperties !== undefined && count > maxProperties)
      )
        return false;
    }
    for (const [key, check] of named) if (Object.hasOwn(value, key) && !check(value[key])) return false;
    if (extra !== undefined) {
      // As the library: every enumerable key, except those `properties` named and the value has.
      for (const key in value) {
        if (namedKeys.has(key) && Object.hasOwn(value, key)) continue;
        if (!extra(value[key])) return false;
      }
    }
    return true;
  };
}

function compileArray(
  schema: Record<string, unknown>,
  draft: SchemaDraft,
): ((value: unknown[]) => boolean) | null | undefined {
  const { items, minItems, maxItems, uniqueItems } = schema;
  if (items === undefined && minItems === undefined && maxItems === undefined && uniqueItems === undefined)
    return undefined;
  // A tuple (draft 7's items array) and uniqueness are left to the library.
  if (uniqueItems !== undefined && uniqueItems !== false) return null;
  if (minItems !== undefined && !isCount(minItems)) return null;
  if (maxItems !== undefined && !isCount(maxItems)) return null;
  const each = items === undefined ? undefined : Array.isArray(items) ? null : compile(items, draft);
  if (each === null) return null;
  return (value) => {
    if (maxItems !== undefined && value.length > maxItems) return false;
    if (minItems !== undefined && value.length < minItems) return false;
    if (each !== undefined) for (let i = 0; i < value.length; i++) if (!each(value[i])) return false;
    return true;
  };
}

function compileNumber(
  schema: Record<string, unknown>,
  draft: SchemaDraft,
): ((value: number) => boolean) | null | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  const bounds = [minimum, maximum, exclusiveMinimum, exclusiveMaximum];
  if (bounds.every((bound) => bound === undefined)) return undefined;
  if (!bounds.every((bound) => bound === undefined || typeof bound === "number")) return null;
  // Draft 4 reads exclusive bounds as flags on minimum and maximum.
  if (draft === "4" && (exclusiveMinimum !== undefined || exclusiveMaximum !== undefined)) return null;
  const low = minimum as number | undefined;
  const high = maximum as number | undefined;
  const above = exclusiveMinimum as number | undefined;
  const below = exclusiveMaximum as number | undefined;
  return (value) =>
    !(low !== undefined && value < low) &&
    !(high !== undefined && value > high) &&
    !(above !== undefined && value <= above) &&
    !(below !== undefined && value >= below);
}

function compileString(schema: Record<string, unknown>): ((value: string) => boolean) | null | undefined {
  const { minLength, maxLength, pattern } = schema;
  if (minLength === undefined && maxLength === undefined && pattern === undefined) return undefined;
  if (minLength !== undefined && !isCount(minLength)) return null;
  if (maxLength !== undefined && !isCount(maxLength)) return null;
  let regex: RegExp | undefined;
  if (pattern !== undefined) {
    if (typeof pattern !== "string") return null;
    try {
      regex = new RegExp(pattern, "u");
    } catch {
      return null; // the library throws while validating: its error stands
    }
  }
  const measured = minLength !== undefined || maxLength !== undefined;
  return (value) => {
    if (measured) {
      const length = ucs2length(value);
      if ((minLength !== undefined && length < minLength) || (maxLength !== undefined && length > maxLength))
        return false;
    }
    return regex === undefined || regex.test(value);
  };
}
