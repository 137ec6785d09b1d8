// One text per JSON value regardless of key order, so equal schemas share a
// cache entry and a hash.

/** JSON text with object keys sorted; `undefined` members are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (typeof member !== "object" || member === null || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).toSorted()) sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Stable identity of a schema: SHA-256 of its canonical JSON. */
export const schemaHash = (schema: unknown): Promise<string> => sha256Hex(canonicalJson(schema));
