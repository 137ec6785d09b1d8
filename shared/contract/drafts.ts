// Which JSON Schema draft a schema is written in. @cfworker/json-schema ignores
// `$schema` and takes the draft as an argument, so every caller that builds a
// validator must ask here first (MCP SDK servers declare draft-07).
import type { SchemaDraft } from "@cfworker/json-schema";

/**
 * Used when a schema declares no `$schema`. The MCP specification (2025-11-25)
 * makes 2020-12 the default dialect for tool schemas.
 */
export const DEFAULT_DRAFT: SchemaDraft = "2020-12";

const DRAFT_URIS: Record<string, SchemaDraft> = {
  "http://json-schema.org/draft-04/schema": "4",
  "http://json-schema.org/draft-07/schema": "7",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** `$schema` URIs are written with and without the empty fragment. */
const normalizeUri = (uri: string): string => uri.trim().replace(/#$/, "");

/**
 * The draft a schema declares: `{ draft }` for a known `$schema`, `{ draft: DEFAULT_DRAFT }`
 * when it declares none, and `{ draft: DEFAULT_DRAFT, unknown }` for an unrecognised value
 * (callers decide whether that is an error: public contracts refuse it, upstream schemas
 * are still validated).
 */
export function schemaDraft(schema: unknown): { draft: SchemaDraft; unknown?: string } {
  if (typeof schema !== "object" || schema === null || !Object.hasOwn(schema, "$schema")) {
    return { draft: DEFAULT_DRAFT };
  }
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return { draft: DEFAULT_DRAFT, unknown: String(declared) };
  const uri = normalizeUri(declared);
  const draft =
    DRAFT_URIS[uri] ??
    // Draft URIs are written with either scheme in the wild.
    DRAFT_URIS[uri.replace(/^https:/, "http:")] ??
    DRAFT_URIS[uri.replace(/^http:/, "https:")];
  return draft === undefined ? { draft: DEFAULT_DRAFT, unknown: declared } : { draft };
}
