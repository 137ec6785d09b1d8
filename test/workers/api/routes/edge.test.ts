// The HTTP edge: problem documents, authentication, body limits, discovery routes.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";

const BOOTSTRAP = "test-bootstrap-key";
const api = (path: string, init?: RequestInit) => exports.default.fetch(`http://rayrun.test${path}`, init);
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  api(path, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${BOOTSTRAP}`, "content-type": "application/json", ...headers },
  });

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await res.json<Record<string, unknown>>();
  expect(body).toMatchObject({ status, code });
  expect(typeof body.title).toBe("string");
  return body;
}

describe("GET /v1/limits", () => {
  it("returns every limit in force without a key", async () => {
    const res = await api("/v1/limits");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(LIMITS);
  });
});

describe("errors are problem documents with a stable code", () => {
  it("unknown routes answer 404 not_found", async () => {
    await expectProblem(await api("/v1/nope"), 404, "not_found");
  });

  it("a missing key answers 401 unauthorized with a Bearer challenge", async () => {
    const res = await api("/v1/compile", { method: "POST", body: "{}" });
    await expectProblem(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("a wrong key answers 401 unauthorized", async () => {
    const res = await post("/v1/compile", "{}", { authorization: "Bearer not-the-key" });
    await expectProblem(res, 401, "unauthorized");
  });

  it("a non-JSON content type answers 415 unsupported_media_type", async () => {
    await expectProblem(
      await post("/v1/compile", "x", { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
  });

  it("malformed JSON answers 400 invalid_json", async () => {
    await expectProblem(await post("/v1/compile", "{"), 400, "invalid_json");
  });

  it("a body of the wrong shape answers 400 invalid_request naming the field", async () => {
    const body = await expectProblem(
      await post("/v1/compile", JSON.stringify({ source: 1 })),
      400,
      "invalid_request",
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: "/source" })]);
  });

  it("unknown body fields are refused", async () => {
    const body = await expectProblem(
      await post("/v1/compile", JSON.stringify({ source: "", surprise: true })),
      400,
      "invalid_request",
    );
    expect(JSON.stringify(body.errors)).toContain("surprise");
  });
});

/** A JSON body padded to an exact byte size: `{"source":"…"}`. */
const bodyOf = (bytes: number) => {
  const shell = JSON.stringify({ source: "" });
  return JSON.stringify({ source: "x".repeat(bytes - shell.length) });
};

describe("limit: requestBodyBytes", () => {
  it("a body of exactly the limit is read", async () => {
    const body = bodyOf(LIMITS.requestBodyBytes);
    expect(body.length).toBe(LIMITS.requestBodyBytes);
    const res = await post("/v1/compile", body);
    expect(res.status).not.toBe(413);
  });

  it("one byte over the limit answers 413 payload_too_large", async () => {
    const res = await post("/v1/compile", bodyOf(LIMITS.requestBodyBytes + 1));
    await expectProblem(res, 413, "payload_too_large");
  });
});
