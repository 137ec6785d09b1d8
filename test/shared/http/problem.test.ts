// Problem documents (RFC 9457): one mapping from stable codes to statuses, and
// a body shape every client can rely on.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import {
  ProblemException,
  problemResponse,
  problemStatus,
  TOO_DEEP,
  type ProblemCode,
} from "../../../shared/http/problem";

const body = async (res: Response) => res.json<Record<string, unknown>>();

describe("problemResponse", () => {
  it("answers application/problem+json with the code's status, title, type URL and detail", async () => {
    const res = problemResponse({ code: "payload_too_large", detail: "Too big." });
    expect(res.status).toBe(problemStatus("payload_too_large"));
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const doc = await body(res);
    expect(doc).toEqual({
      type: "https://rayrun.dev/problems/payload-too-large",
      title: expect.any(String),
      status: res.status,
      code: "payload_too_large",
      detail: "Too big.",
    });
    expect(doc.title).not.toBe("");
  });

  it("the type URL is the code with every underscore as a dash", async () => {
    const codes: ProblemCode[] = ["not_found", "request_hook_failed", "provider_not_configured"];
    for (const code of codes) {
      const doc = await body(problemResponse({ code }));
      expect(doc.type).toBe(`https://rayrun.dev/problems/${code.split("_").join("-")}`);
      expect(String(doc.type)).not.toContain("_");
    }
  });

  it("omits detail when none is given", async () => {
    const doc = await body(problemResponse({ code: "not_found" }));
    expect(doc).not.toHaveProperty("detail");
    expect(doc.status).toBe(404);
  });

  it("merges extension members, but they never override type, title, status or code", async () => {
    const res = problemResponse({
      code: "invalid_request",
      detail: "d",
      extensions: { errors: [{ path: "/a", message: "m" }], status: 200, code: "ok", type: "x", title: "t" },
    });
    const doc = await body(res);
    expect(res.status).toBe(400);
    expect(doc).toMatchObject({
      status: 400,
      code: "invalid_request",
      type: "https://rayrun.dev/problems/invalid-request",
      errors: [{ path: "/a", message: "m" }],
    });
    expect(doc.title).not.toBe("t");
  });

  it("sends the problem's extra headers", () => {
    const res = problemResponse({ code: "method_not_allowed", headers: { allow: "GET, POST" } });
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });
});

describe("status mapping", () => {
  it("client errors are 4xx and server-side failures 5xx", () => {
    const client: ProblemCode[] = [
      "invalid_request",
      "invalid_json",
      "json_too_deep",
      "unauthorized",
      "forbidden",
      "not_found",
      "workspace_not_found",
      "conflict",
      "precondition_failed",
      "payload_too_large",
      "unsupported_media_type",
      "compile_failed",
      "precondition_required",
      "rate_limited",
    ];
    for (const code of client) expect(problemStatus(code), code).toBeGreaterThanOrEqual(400);
    for (const code of client) expect(problemStatus(code), code).toBeLessThan(500);
    for (const code of ["internal_error", "upstream_unavailable", "provider_timeout"] as const)
      expect(problemStatus(code), code).toBeGreaterThanOrEqual(500);
  });

  it("a failed request hook is never a 5xx, so LLM SDKs do not resend the request", () => {
    expect(problemStatus("request_hook_failed")).toBeLessThan(500);
    expect(problemStatus("request_hook_failed")).toBeGreaterThanOrEqual(400);
  });

  it("the well-known HTTP codes keep their HTTP status", () => {
    expect(problemStatus("unauthorized")).toBe(401);
    expect(problemStatus("not_found")).toBe(404);
    expect(problemStatus("method_not_allowed")).toBe(405);
    expect(problemStatus("payload_too_large")).toBe(413);
    expect(problemStatus("unsupported_media_type")).toBe(415);
    expect(problemStatus("rate_limited")).toBe(429);
  });
});

describe("TOO_DEEP", () => {
  it("is a 400 json_too_deep naming the configured depth limit", async () => {
    const doc = await body(problemResponse(TOO_DEEP));
    expect(doc).toMatchObject({ status: 400, code: "json_too_deep", limit: LIMITS.jsonDepth });
    expect(doc.detail).toContain(String(LIMITS.jsonDepth));
  });
});

describe("ProblemException", () => {
  it("carries its problem; its message is the detail, else the code", () => {
    const withDetail = new ProblemException({ code: "conflict", detail: "Already there." });
    expect(withDetail).toBeInstanceOf(Error);
    expect(withDetail.name).toBe("ProblemException");
    expect(withDetail.message).toBe("Already there.");
    expect(withDetail.problem.code).toBe("conflict");
    expect(new ProblemException({ code: "forbidden" }).message).toBe("forbidden");
  });
});
