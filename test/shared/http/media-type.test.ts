// Which Content-Type headers count as JSON.
import { describe, expect, it } from "vitest";
import { isJsonMediaType } from "../../../shared/http/media-type";

describe("isJsonMediaType", () => {
  it("accepts application/json in any case, with parameters and surrounding spaces", () => {
    for (const type of [
      "application/json",
      "Application/JSON",
      "application/json; charset=utf-8",
      "  application/json  ;charset=UTF-8",
      "application/json;",
    ]) {
      expect(isJsonMediaType(type), type).toBe(true);
    }
  });

  it("accepts structured-syntax +json types", () => {
    for (const type of [
      "application/problem+json",
      "application/merge-patch+json",
      "application/vnd.api+json; charset=utf-8",
      "application/json-patch+json",
    ]) {
      expect(isJsonMediaType(type), type).toBe(true);
    }
  });

  it("refuses other types, look-alikes and a missing header", () => {
    for (const type of [
      null,
      undefined,
      "",
      "text/json",
      "text/plain",
      "application/jsonp",
      "application/x-json",
      "application/json+xml",
      "application/+json",
      "multipart/form-data; boundary=json",
      "application/xml; type=application/json",
      "application/json x",
    ]) {
      expect(isJsonMediaType(type), String(type)).toBe(false);
    }
  });
});
