// Hook-controlled schemas must not make the host run regular expressions:
// RegExp execution is not time-bounded. Applies to public contracts
// and, later, plugin tool parameters. Upstream schemas are not hook-controlled
// and are validated as they are.
import { walkSchema } from "./schema-walk";

export type RegexKeyword = "pattern" | "patternProperties" | "format";

export interface RegexKeywordHit {
  keyword: RegexKeyword;
  /** JSON Pointer of the offending keyword, e.g. `/properties/q/pattern`. */
  pointer: string;
}

/**
 * Every `pattern`, `patternProperties` and `format: "regex"` used as a schema
 * keyword, at any depth. Names of properties are not keywords, so a property
 * called "pattern" (`properties.pattern`) is not a hit.
 */
export function findRegexKeywords(schema: unknown): RegexKeywordHit[] {
  const hits: RegexKeywordHit[] = [];
  for (const node of walkSchema(schema, { unknownKeywordsAreSchemas: true })) {
    const value = node.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    if (Object.hasOwn(value, "pattern"))
      hits.push({ keyword: "pattern", pointer: `${node.pointer}/pattern` });
    if (Object.hasOwn(value, "patternProperties")) {
      hits.push({ keyword: "patternProperties", pointer: `${node.pointer}/patternProperties` });
    }
    if ((value as { format?: unknown }).format === "regex") {
      hits.push({ keyword: "format", pointer: `${node.pointer}/format` });
    }
  }
  return hits;
}
