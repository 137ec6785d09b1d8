// UTF-8 <-> base64 for `context.encoding`, run on the host (exact, and the
// prelude charges fuel for the input size before calling).
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function base64EncodeUtf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK)
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** Decoded text, or an Error describing why the input is not valid. */
export function base64DecodeUtf8(encoded: string): string | Error {
  if (!STRICT_BASE64.test(encoded)) return new Error("input is not valid base64 (RFC 4648, with padding)");
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return new Error("decoded bytes are not valid UTF-8");
  }
}
