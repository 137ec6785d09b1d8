// Enumerates the places in a JSON Schema document that a validator treats as
// subschemas. Both the regex check and the structural check walk through here,
// so "which keyword holds a schema" is decided once.
//
// Iterative (explicit stack) on purpose: schemas come from hook output and
// upstream servers, and a recursive walk could be driven into a stack overflow.

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = new Set([
  "not",
  "if",
  "then",
  "else",
  "additionalProperties",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "items",
]);
/** Keywords whose value is an array of subschemas (`items` too, before 2020-12). */
const SCHEMA_ARRAY_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
/** Keywords whose value maps names (data, not keywords) to subschemas. */
const SCHEMA_MAP_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);
/** Keywords whose value is instance data or plain metadata, never a schema. */
const DATA_KEYWORDS = new Set([
  "const",
  "enum",
  "default",
  "examples",
  "required",
  "dependentRequired",
  "$vocabulary",
]);

export interface SchemaNode {
  /** The subschema (an object or a boolean in well-formed input; anything otherwise). */
  value: unknown;
  /** JSON Pointer of the subschema from the document root ("" for the root). */
  pointer: string;
  /** Number of schema levels above this one (root = 0). */
  depth: number;
}

export interface WalkOptions {
  /**
   * Also treat object values of unknown keywords as subschemas. Validators such
   * as @cfworker/json-schema index those for `$ref`, so anything hunting for
   * dangerous keywords must look there; a structural check must not, since
   * vendor extensions (`x-…`) hold arbitrary data.
   */
  unknownKeywordsAreSchemas: boolean;
}

export const escapePointerToken = (token: string): string =>
  token.replaceAll("~", "~0").replaceAll("/", "~1");

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every subschema of `root`, root first, in document order. */
export function* walkSchema(root: unknown, options: WalkOptions): Generator<SchemaNode> {
  const stack: SchemaNode[] = [{ value: root, pointer: "", depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    yield node;
    if (!isPlainObject(node.value)) continue;
    const children: SchemaNode[] = [];
    const child = (value: unknown, pointer: string) =>
      children.push({ value, pointer, depth: node.depth + 1 });
    for (const [key, value] of Object.entries(node.value)) {
      const at = `${node.pointer}/${escapePointerToken(key)}`;
      if (DATA_KEYWORDS.has(key)) continue;
      if (Array.isArray(value)) {
        if (SCHEMA_ARRAY_KEYWORDS.has(key)) value.forEach((item, i) => child(item, `${at}/${i}`));
      } else if (SCHEMA_MAP_KEYWORDS.has(key)) {
        if (!isPlainObject(value)) continue;
        for (const [name, sub] of Object.entries(value)) {
          // `dependencies` mixes schemas with arrays of property names.
          if (!Array.isArray(sub)) child(sub, `${at}/${escapePointerToken(name)}`);
        }
      } else if (SCHEMA_KEYWORDS.has(key)) {
        child(value, at);
      } else if (options.unknownKeywordsAreSchemas && isPlainObject(value)) {
        child(value, at);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as SchemaNode);
  }
}
