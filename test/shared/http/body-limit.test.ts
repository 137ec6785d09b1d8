// The one wording of a body over the request limit, shared by the API and the gateway.
import { describe, expect, it } from "vitest";
import { bodyTooLarge, declaredBytes, kib } from "../../../shared/http/body-limit";

describe("bodyTooLarge", () => {
  it("names the body's size and the limit in KiB", () => {
    expect(bodyTooLarge(512 * 1024, 612 * 1024)).toEqual({
      code: "payload_too_large",
      detail: "The body is 612 KiB; the limit is 512 KiB.",
      extensions: { limit: 512 * 1024, size: 612 * 1024 },
    });
  });

  it("a body of unknown length is over the limit", () => {
    expect(bodyTooLarge(512 * 1024, null).detail).toBe("The body is over 512 KiB; the limit is 512 KiB.");
  });

  it("rounds sizes up to a tenth of a KiB, so one byte over never reads as the limit", () => {
    expect(kib(512 * 1024 + 1)).toBe("512.1 KiB");
    expect(kib(64)).toBe("0.1 KiB");
    expect(kib(1536)).toBe("1.5 KiB");
  });

  it("reads a declared length only when it is a byte count", () => {
    expect(declaredBytes(new Headers({ "content-length": "626688" }))).toBe(626688);
    for (const text of ["", "-1", "1e6", "12 34"]) {
      expect(declaredBytes(new Headers({ "content-length": text })), text).toBeNull();
    }
    expect(declaredBytes(new Headers())).toBeNull();
  });
});
