// Draft ETags. A head is `{ generation, version }`; the generation grows on
// every reset, so an ETag taken before a reset never matches after it.

export interface HeadRef {
  generation: number;
  version: number;
}

export const draftEtag = (head: HeadRef): string => `"g${head.generation}.v${head.version}"`;

export type IfMatch = { kind: "missing" } | { kind: "wildcard" } | { kind: "tags"; tags: readonly string[] };

/**
 * Parses an `If-Match` header into its entity tags (quoted, as sent). Weak tags
 * never match (RFC 9110 strong comparison); a bare `g1.v2` is accepted as `"g1.v2"`
 * for hand-typed requests.
 */
export function parseIfMatch(header: string | undefined | null): IfMatch {
  const value = header?.trim() ?? "";
  if (value === "") return { kind: "missing" };
  if (value === "*") return { kind: "wildcard" };
  const tags: string[] = [];
  for (const part of value.split(",")) {
    const tag = part.trim();
    if (tag === "" || tag.startsWith("W/")) continue;
    tags.push(tag.startsWith('"') ? tag : `"${tag}"`);
  }
  return { kind: "tags", tags };
}
