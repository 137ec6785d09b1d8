// JSON Schema → TypeScript type text: the editor's generated declarations (api
// Worker) and Code Mode's `describe_tools` (gateway) use the same converter, so
// a tool reads the same in both. Pure: no compiler, no I/O.
//
// Hand-written because the maintained converter (json-schema-to-typescript)
// does not fit a Worker: it formats with prettier and resolves `$ref`s with a
// resolver built on Node's fs/http, which would also bloat the Workers.
// The editor only needs readable, valid, approximately right types; anything
// this does not model becomes `unknown`, never an error. Its bounds (depth,
// subschemas, doc comment length) are KNOBS.types*.
import { KNOBS } from "../knobs";

type SchemaObject = Record<string, unknown>;
const isObject = (value: unknown): value is SchemaObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A property key as TypeScript source: bare when it is an identifier, else a string literal. */
export const propertyKey = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** Text safe inside a `/** … *\/` comment, on one line. */
export const docText = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim().replaceAll("*/", "*\\/");
  return flat.length > KNOBS.typesDocChars ? `${flat.slice(0, KNOBS.typesDocChars - 1)}…` : flat;
};

// Over-parenthesizing (a `|` inside braces) is harmless; under-parenthesizing is not.
const wrap = (type: string): string => (/[|&]/.test(type) ? `(${type})` : type);

function union(members: string[]): string {
  const unique = [...new Set(members.filter((member) => member !== "never"))];
  if (unique.includes("unknown")) return "unknown";
  if (unique.length === 0) return "never";
  return unique.length === 1 ? (unique[0] as string) : unique.map(wrap).join(" | ");
}

function intersection(members: string[]): string {
  const unique = [...new Set(members.filter((member) => member !== "unknown"))];
  if (unique.includes("never")) return "never";
  if (unique.length === 0) return "unknown";
  return unique.length === 1 ? (unique[0] as string) : unique.map(wrap).join(" & ");
}

/** The TypeScript type of exactly one JSON value (for `const` and `enum`). */
function literal(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => literal(item)).join(", ")}]`;
  if (isObject(value)) {
    const entries = Object.entries(value).map(([key, member]) => `${propertyKey(key)}: ${literal(member)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join("; ")} }`;
  }
  return "unknown";
}

class Converter {
  private nodes = 0;
  /** Local `$ref` → alias name, in order of discovery. */
  readonly aliases = new Map<string, string>();
  private readonly pending: string[] = [];
  private readonly usedNames: Set<string>;

  constructor(
    private readonly root: unknown,
    private readonly rootName: string,
    reserved: Iterable<string>,
  ) {
    this.usedNames = new Set(reserved);
  }

  /** `type Root = …;` followed by one alias per referenced definition. */
  declarations(doc: string): string {
    const out = [`/** ${docText(doc)} */`, `type ${this.rootName} = ${this.convert(this.root, 0, "")};`];
    for (let ref = this.pending.shift(); ref !== undefined; ref = this.pending.shift()) {
      const target = resolveLocal(this.root, ref);
      out.push(`type ${this.aliases.get(ref)} = ${this.convert(target, 0, "")};`);
    }
    return out.join("\n");
  }

  convert(schema: unknown, depth: number, indent: string): string {
    if (schema === false) return "never";
    if (!isObject(schema)) return "unknown";
    if (depth > KNOBS.typesMaxDepth || ++this.nodes > KNOBS.typesMaxNodes) return "unknown";
    if (typeof schema.$ref === "string") return this.reference(schema.$ref);

    const parts: string[] = [];
    const base = this.base(schema, depth, indent);
    if (base !== undefined) parts.push(schema.nullable === true ? union([base, "null"]) : base);
    for (const keyword of ["anyOf", "oneOf"]) {
      const options = schema[keyword];
      if (Array.isArray(options))
        parts.push(union(options.map((option) => this.convert(option, depth + 1, indent))));
    }
    if (Array.isArray(schema.allOf)) {
      parts.push(intersection(schema.allOf.map((member) => this.convert(member, depth + 1, indent))));
    }
    return intersection(parts);
  }

  private base(schema: SchemaObject, depth: number, indent: string): string | undefined {
    if (Object.hasOwn(schema, "const")) return literal(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => literal(value)));
    const type = schema.type;
    if (typeof type === "string") return this.ofType(type, schema, depth, indent);
    if (Array.isArray(type)) {
      return union(
        type.map((t) => (typeof t === "string" ? this.ofType(t, schema, depth, indent) : "unknown")),
      );
    }
    if (
      isObject(schema.properties) ||
      Array.isArray(schema.required) ||
      Object.hasOwn(schema, "additionalProperties")
    ) {
      return this.object(schema, depth, indent);
    }
    if (Object.hasOwn(schema, "items") || Array.isArray(schema.prefixItems))
      return this.array(schema, depth, indent);
    return undefined;
  }

  private ofType(type: string, schema: SchemaObject, depth: number, indent: string): string {
    switch (type) {
      case "string":
      case "boolean":
      case "null":
      case "number":
        return type;
      case "integer":
        return "number";
      case "object":
        return this.object(schema, depth, indent);
      case "array":
        return this.array(schema, depth, indent);
      default:
        return "unknown";
    }
  }

  private object(schema: SchemaObject, depth: number, indent: string): string {
    const inner = `${indent}  `;
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === "string") : [],
    );
    const lines: string[] = [];
    for (const [name, sub] of Object.entries(properties)) {
      if (isObject(sub) && typeof sub.description === "string")
        lines.push(`${inner}/** ${docText(sub.description)} */`);
      const optional = required.has(name) ? "" : "?";
      lines.push(`${inner}${propertyKey(name)}${optional}: ${this.convert(sub, depth + 1, inner)};`);
    }
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) lines.push(`${inner}${propertyKey(name)}: unknown;`);
    }
    const additional = schema.additionalProperties;
    const closed = additional === false || schema.unevaluatedProperties === false;
    if (!closed) {
      // Declared properties must fit the index signature, so a typed one only works alone.
      const onlyAdditional =
        Object.keys(properties).length === 0 && required.size === 0 && isObject(additional);
      const valueType = onlyAdditional ? this.convert(additional, depth + 1, inner) : "unknown";
      lines.push(`${inner}[key: string]: ${valueType};`);
    }
    if (lines.length === 0) return "{ [key: string]: never }";
    return `{\n${lines.join("\n")}\n${indent}}`;
  }

  private array(schema: SchemaObject, depth: number, indent: string): string {
    const prefix = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : undefined;
    if (prefix === undefined) {
      const items = Object.hasOwn(schema, "items") ? schema.items : true;
      return `${wrap(this.convert(items, depth + 1, indent))}[]`;
    }
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
    const elements = prefix.map((item, i) => {
      const type = this.convert(item, depth + 1, indent);
      return i < minItems ? type : `${wrap(type)}?`;
    });
    if (rest !== false) elements.push(`...${wrap(this.convert(rest ?? true, depth + 1, indent))}[]`);
    return `[${elements.join(", ")}]`;
  }

  private reference(ref: string): string {
    if (ref === "#") return this.rootName;
    const known = this.aliases.get(ref);
    if (known !== undefined) return known;
    if (!ref.startsWith("#/") || resolveLocal(this.root, ref) === undefined) return "unknown";
    const last = decodeToken(ref.slice(ref.lastIndexOf("/") + 1)) ?? "Ref";
    const stem = `${this.rootName}_${last.replace(/[^A-Za-z0-9_$]/g, "_")}`;
    let name = stem;
    for (let n = 2; this.usedNames.has(name); n++) name = `${stem}${n}`;
    this.usedNames.add(name);
    this.aliases.set(ref, name);
    this.pending.push(ref);
    return name;
  }
}

function decodeToken(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch {
    return undefined;
  }
}

function resolveLocal(root: unknown, ref: string): unknown {
  let current = root;
  for (const raw of ref.slice(2).split("/")) {
    const token = decodeToken(raw);
    if (token === undefined) return undefined;
    if (Array.isArray(current) && /^\d+$/.test(token)) current = current[Number(token)];
    else if (isObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

/**
 * `type <name> = …;` for a schema, plus `type <name>_<Def> = …;` for each local
 * `$ref` it uses (recursive references become recursive aliases). `reserved`
 * lists names already taken in the file.
 */
export function schemaToTypeDeclarations(
  schema: unknown,
  name: string,
  doc: string,
  reserved: Iterable<string> = [],
): string {
  return new Converter(schema, name, [name, ...reserved]).declarations(doc);
}
