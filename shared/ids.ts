const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase

function base32Time(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** Ids made by this isolate, so ids of one millisecond sort in the order they were made. */
let sequence = 0;
const SEQUENCE_DIGITS = 4;

/**
 * Identifier such as `ws_01k…`: a millisecond timestamp, a sequence number of
 * this isolate (Workers' clocks stand still between I/O, so many ids share a
 * millisecond) and 40 random bits, so ids sort by creation time (cursors page
 * by id) and never collide in practice.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  sequence = (sequence + 1) % 32 ** SEQUENCE_DIGITS;
  let tail = "";
  for (let i = SEQUENCE_DIGITS - 1; i >= 0; i--) tail += ALPHABET[Math.floor(sequence / 32 ** i) % 32];
  const random = crypto.getRandomValues(new Uint8Array(8));
  for (const b of random) tail += ALPHABET[b & 31];
  return `${prefix}_${base32Time(now)}${tail}`;
}

/**
 * The smallest id with `prefix` made at or after `ms`: ids lead with their
 * time, so `id < idTimeBound(prefix, t)` selects exactly the ids made before `t`.
 */
export const idTimeBound = (prefix: string, ms: number): string => `${prefix}_${base32Time(ms)}`;

/** A secret for an API key: 32 random bytes, base64url. */
export function newSecret(): string {
  const random = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...random))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
