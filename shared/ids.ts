const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase

function base32Time(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * Identifier such as `ws_01k…`: a millisecond timestamp then 60 random bits, so ids
 * sort by creation time (cursors page by id) and never collide in practice.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  const random = crypto.getRandomValues(new Uint8Array(12));
  let tail = "";
  for (const b of random) tail += ALPHABET[b & 31];
  return `${prefix}_${base32Time(now)}${tail}`;
}

/** A secret for an API key: 32 random bytes, base64url. */
export function newSecret(): string {
  const random = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...random))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
