// Structural validity of a JSON Schema, checked by hand rather than against the
// official metaschemas: the 2019-09 and 2020-12 metaschemas are split into
// vocabularies joined with `$recursiveRef`/`$dynamicRef`, which
// @cfworker/json-schema does not fully resolve, and the draft-07 metaschema
// would only cover one draft. This checks the shape of every keyword a
// validator acts on (the same rules the metaschemas state for them), requires
// local `$ref`s to resolve, and leaves unknown keywords alone, as JSON Schema does.
import type { SchemaDraft } from "@cfworker/json-schema";
import { schemaDraft } from "../../../shared/contract/drafts";
import { walkSchema } from "./schema-walk";

export interface SchemaProblem {
  /** JSON Pointer of the offending keyword or subschema. */
  pointer: string;
  message: string;
}

/** Deeper nesting than any real tool schema; bounds the recursive validator and type generator. */
export const MAX_SCHEMA_DEPTH = 32;

const TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const NON_NEGATIVE_INTEGER = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
];
const NUMBER = ["minimum", "maximum"];
const STRING = [
  "$id",
  "$anchor",
  "$comment",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveRef",
  "format",
  "title",
  "description",
  "contentEncoding",
  "contentMediaType",
];
const BOOLEAN = ["uniqueItems", "readOnly", "writeOnly", "deprecated", "$recursiveAnchor"];
const NON_EMPTY_SCHEMA_ARRAY = ["allOf", "anyOf", "oneOf"];
const SCHEMA_MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");
const isUnique = (items: unknown[]): boolean =>
  new Set(items.map((item) => JSON.stringify(item))).size === items.length;

/** Problems in `schema`, empty when it is a structurally valid schema of the draft it declares. */
export function checkSchemaStructure(schema: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const declared = schemaDraft(schema);
  if (declared.unknown !== undefined) {
    problems.push({ pointer: "/$schema", message: `unsupported $schema "${declared.unknown}"` });
  }
  for (const node of walkSchema(schema, { unknownKeywordsAreSchemas: false })) {
    if (node.depth > MAX_SCHEMA_DEPTH) {
      problems.push({
        pointer: node.pointer,
        message: `schemas nest deeper than ${MAX_SCHEMA_DEPTH} levels`,
      });
      break;
    }
    checkNode(node.value, node.pointer, declared.draft, schema, problems);
  }
  return problems;
}

function checkNode(node: unknown, at: string, draft: SchemaDraft, root: unknown, out: SchemaProblem[]): void {
  const problem = (keyword: string, message: string) => out.push({ pointer: `${at}/${keyword}`, message });
  if (typeof node === "boolean") {
    if (draft === "4") out.push({ pointer: at, message: "boolean schemas need draft-06 or later" });
    return;
  }
  if (!isObject(node)) {
    out.push({ pointer: at, message: "a schema must be an object or a boolean" });
    return;
  }
  const has = (keyword: string) => Object.hasOwn(node, keyword);

  if (has("type")) {
    const type = node.type;
    const valid =
      (typeof type === "string" && TYPES.has(type)) ||
      (Array.isArray(type) &&
        type.length > 0 &&
        type.every((t) => typeof t === "string" && TYPES.has(t)) &&
        isUnique(type));
    if (!valid) problem("type", `must be one of ${[...TYPES].join(", ")} or a non-empty array of them`);
  }
  if (has("required") && !(isStringArray(node.required) && isUnique(node.required))) {
    problem("required", "must be an array of unique strings");
  }
  if (has("enum") && !Array.isArray(node.enum)) problem("enum", "must be an array");
  if (has("examples") && !Array.isArray(node.examples)) problem("examples", "must be an array");
  for (const keyword of NON_EMPTY_SCHEMA_ARRAY) {
    if (has(keyword) && !(Array.isArray(node[keyword]) && (node[keyword] as unknown[]).length > 0)) {
      problem(keyword, "must be a non-empty array of schemas");
    }
  }
  if (has("prefixItems") && !Array.isArray(node.prefixItems))
    problem("prefixItems", "must be an array of schemas");
  if (has("items") && Array.isArray(node.items) && draft === "2020-12") {
    problem("items", "must be a schema in 2020-12 (use prefixItems for tuples)");
  }
  for (const keyword of SCHEMA_MAP) {
    if (has(keyword) && !isObject(node[keyword])) problem(keyword, "must be an object of schemas");
  }
  if (has("dependencies")) {
    const deps = node.dependencies;
    const valid =
      isObject(deps) &&
      Object.values(deps).every((dep) => isStringArray(dep) || isObject(dep) || typeof dep === "boolean");
    if (!valid) problem("dependencies", "must map property names to schemas or arrays of names");
  }
  if (has("dependentRequired")) {
    const deps = node.dependentRequired;
    if (!(isObject(deps) && Object.values(deps).every(isStringArray))) {
      problem("dependentRequired", "must map property names to arrays of names");
    }
  }
  for (const keyword of NON_NEGATIVE_INTEGER) {
    const value = node[keyword];
    if (has(keyword) && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
      problem(keyword, "must be a non-negative integer");
    }
  }
  for (const keyword of NUMBER) {
    if (has(keyword) && typeof node[keyword] !== "number") problem(keyword, "must be a number");
  }
  for (const keyword of ["exclusiveMinimum", "exclusiveMaximum"]) {
    const value = node[keyword];
    // Draft-04 spelled these as booleans modifying minimum/maximum.
    const valid = draft === "4" ? typeof value === "boolean" : typeof value === "number";
    if (has(keyword) && !valid) problem(keyword, draft === "4" ? "must be a boolean" : "must be a number");
  }
  if (has("multipleOf") && !(typeof node.multipleOf === "number" && node.multipleOf > 0)) {
    problem("multipleOf", "must be a number greater than 0");
  }
  for (const keyword of STRING) {
    if (has(keyword) && typeof node[keyword] !== "string") problem(keyword, "must be a string");
  }
  for (const keyword of BOOLEAN) {
    if (has(keyword) && typeof node[keyword] !== "boolean") problem(keyword, "must be a boolean");
  }
  if (has("$ref")) checkRef(node.$ref, root, (message) => problem("$ref", message));
}

/**
 * Only references into the same document: the gateway never fetches schemas,
 * and an unresolvable `$ref` would only fail later, at call time.
 */
function checkRef(ref: unknown, root: unknown, report: (message: string) => void): void {
  if (typeof ref !== "string") return report("must be a string");
  if (!ref.startsWith("#")) return report("only local references (#/…) are supported");
  if (resolvePointer(root, ref.slice(1)) === undefined) report(`"${ref}" does not resolve within the schema`);
}

function resolvePointer(root: unknown, fragment: string): unknown {
  if (fragment === "") return root;
  if (!fragment.startsWith("/")) return undefined;
  let current: unknown = root;
  for (const raw of fragment.slice(1).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(current)) current = /^\d+$/.test(token) ? current[Number(token)] : undefined;
    else if (isObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}
