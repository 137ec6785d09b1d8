// A minimal example value for a JSON Schema: the test console's starting arguments and mock
// results. Required properties only (all of them when none are required), the first of each
// choice, local $refs followed; enough to run a stage, not a faithful generator.
import type { Json, JsonObject } from "./types";

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

function resolve(schema: JsonObject, root: JsonObject): JsonObject {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let node: Json | undefined = root;
  for (const part of ref.slice(2).split("/")) {
    node = isObject(node) ? node[part.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
  }
  return isObject(node) ? node : {};
}

function stringExample(schema: JsonObject): string {
  switch (schema.format) {
    case "date-time":
      return new Date(0).toISOString();
    case "date":
      return "2024-01-01";
    case "uri":
    case "url":
      return "https://example.com";
    case "email":
      return "someone@example.com";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    default: {
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      return min > 7 ? "x".repeat(min) : "example".slice(0, Math.max(min, 7));
    }
  }
}

export function exampleFor(schema: unknown, root?: JsonObject, depth = 0): Json {
  if (!isObject(schema) || depth > 8) return null;
  const top = root ?? schema;
  const s = resolve(schema, top);
  if ("const" in s) return s.const ?? null;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0] ?? null;
  if ("default" in s) return s.default ?? null;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0] ?? null;
  for (const key of ["oneOf", "anyOf", "allOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) return exampleFor(options[0], top, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object":
    case undefined: {
      const properties = isObject(s.properties) ? s.properties : {};
      if (type === undefined && Object.keys(properties).length === 0) return {};
      const required = Array.isArray(s.required) ? s.required.filter((r) => typeof r === "string") : [];
      const names = required.length > 0 ? required : Object.keys(properties);
      const out: JsonObject = {};
      for (const name of names) out[name] = exampleFor(properties[name] ?? {}, top, depth + 1);
      return out;
    }
    case "array": {
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      // One item shows the shape (an empty list would test nothing).
      const length = isObject(s.items) ? Math.min(Math.max(min, 1), 3) : 0;
      return Array.from({ length }, () => exampleFor(s.items, top, depth + 1));
    }
    case "string":
      return stringExample(s);
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}

export const pretty = (value: unknown): string => JSON.stringify(value, null, 2);
