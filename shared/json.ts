export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** UTF-8 byte length of a string, without allocating an encoded copy. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep (a
 * scalar is 0 levels, `[]` is 1). Measured without recursion: the recursive
 * schema validators and serialisers downstream would overflow the stack on
 * exactly the values this refuses.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { item, depth } = next;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    const children: unknown[] = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) pending.push({ item: child, depth: depth + 1 });
  }
  return false;
}
