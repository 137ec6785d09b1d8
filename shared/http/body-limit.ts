// How a body over the request limit is refused, on the API and the gateway
// alike: the body's size beside the limit, in KiB, so the sender sees how far
// over it is.
import type { Problem } from "./problem";

/** `bytes` in KiB, rounded up to a tenth: a body one byte over the limit never reads as the limit. */
export function kib(bytes: number): string {
  const tenths = Math.ceil((bytes * 10) / 1024);
  return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)} KiB`;
}

/** The body size a request declares (`Content-Length`), or null when it declares none it can mean. */
export function declaredBytes(headers: Headers): number | null {
  const text = headers.get("content-length");
  return text !== null && /^[0-9]{1,15}$/.test(text) ? Number(text) : null;
}

/**
 * The 413 of a body over `limit` bytes. `size` is its length when known (declared,
 * or read whole); a body streamed without a length is only known to be over.
 */
export function bodyTooLarge(limit: number, size: number | null): Problem & { detail: string } {
  const sized = size !== null && size > limit;
  return {
    code: "payload_too_large",
    detail: `The body is ${sized ? kib(size) : `over ${kib(limit)}`}; the limit is ${kib(limit)}.`,
    extensions: { limit, ...(sized ? { size } : {}) },
  };
}
