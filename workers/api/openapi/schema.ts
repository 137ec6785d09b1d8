// Zod schemas as OpenAPI schemas whose components can share one document.
// zod names the recursive parts of each schema `__schema0`, `__schema1`, …
// afresh (z.json() is one), and hono-openapi merges every operation's
// components into one map: two bodies' `__schema0` would overwrite each other,
// and a schema recursive at its root would point at `#/components/schemas/#`.
// Here each such part is named by its content instead, so equal parts share a
// component and different ones never collide.
import { resolver } from "hono-openapi";
import { z } from "zod";

type Converted = Awaited<ReturnType<ReturnType<typeof resolver>["toOpenAPISchema"]>>;

const PREFIX = "#/components/schemas/";
/** Where zod's `#` (the schema itself) ends up after hono-openapi's rewrite. */
const ROOT_REF = `${PREFIX}#`;
const GENERATED = /^__schema\d+$/;

/** FNV-1a: a short, stable name suffix; collisions only rename, they never merge different parts. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** The part's JSON with references to itself made position-independent. */
const shapeOf = (ref: string, part: unknown): string =>
  JSON.stringify(part).replaceAll(JSON.stringify(ref), '"#"');

let jsonValueShape: Promise<string> | undefined;
/** The shape of z.json(), the recursive part nearly every body has: it gets a readable name. */
const jsonShape = () =>
  (jsonValueShape ??= resolver(z.json())
    .toOpenAPISchema()
    .then((converted) => shapeOf(ROOT_REF, converted.schema)));

function renameRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, names));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" ? (names.get(inner) ?? inner) : renameRefs(inner, names),
    ]),
  );
}

/** The OpenAPI form of `schema` (its input side), with content-named recursive components. */
export async function openapiSchema(schema: z.ZodType): Promise<Converted> {
  const converted = await resolver(schema).toOpenAPISchema();
  const parts: Record<string, unknown> = { ...converted.components?.schemas };
  let root: unknown = converted.schema;
  if (JSON.stringify(root).includes(JSON.stringify(ROOT_REF))) {
    parts["#"] = root;
    root = { $ref: ROOT_REF };
  }
  const json = await jsonShape();
  const names = new Map<string, string>();
  for (const [name, part] of Object.entries(parts)) {
    if (name !== "#" && !GENERATED.test(name)) continue;
    const shape = shapeOf(`${PREFIX}${name}`, part);
    names.set(`${PREFIX}${name}`, `${PREFIX}${shape === json ? "JsonValue" : `Recursive${hash(shape)}`}`);
  }
  const schemas = Object.fromEntries(
    Object.entries(parts).map(([name, part]) => [
      (names.get(`${PREFIX}${name}`) ?? `${PREFIX}${name}`).slice(PREFIX.length),
      renameRefs(part, names),
    ]),
  );
  return {
    schema: renameRefs(root, names) as Converted["schema"],
    components: {
      ...converted.components,
      schemas: schemas as NonNullable<Converted["components"]>["schemas"],
    },
  };
}
