// The HTTP edge: problem documents, authentication, body limits, discovery routes.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { nestedJsonText } from "../../../helpers/nested";

const BOOTSTRAP = "test-bootstrap-key";
const PASS_THROUGH = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: args }) => ({ action: "continue", arguments: args }),
});`;
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

  it("a method a route does not have answers 405 method_not_allowed with Allow; nothing is stored", async () => {
    const cases = [
      ["GET", "/v1/run", "POST"],
      ["GET", "/v1/compile", "POST"],
      ["DELETE", "/v1/limits", "GET"],
      ["PATCH", "/v1/workspaces/ws_any/config", "GET, PUT"],
      ["PUT", "/v1/workspaces", "POST"],
    ] as const;
    for (const [method, path, allow] of cases) {
      const res = await api(path, { method, headers: { authorization: `Bearer ${BOOTSTRAP}` } });
      const body = await expectProblem(res, 405, "method_not_allowed");
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      expect(body.detail).toContain(method);
    }
    const auth = { authorization: `Bearer ${BOOTSTRAP}` };
    const created = await post("/v1/workspaces", JSON.stringify({ name: "edge-405" }));
    const { uid } = await created.json<{ uid: string }>();
    const keys = async () => (await api(`/v1/workspaces/${uid}/keys`, { headers: auth })).text();
    const before = await keys();
    const refused = await api(`/v1/workspaces/${uid}/keys`, { method: "DELETE", headers: auth });
    await expectProblem(refused, 405, "method_not_allowed");
    expect(refused.headers.get("allow")).toBe("GET, POST");
    expect(await keys()).toBe(before);
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

/** `/v1/run` of a pass-through `before` whose arguments nest `argumentsDepth` levels. */
const runNested = (argumentsDepth: number) =>
  post(
    "/v1/run",
    `{"source":${JSON.stringify(PASS_THROUGH)},"stage":"before","arguments":${nestedJsonText(argumentsDepth)}}`,
  );

describe("limit: jsonDepth", () => {
  it("a body nested exactly to the limit is run", async () => {
    // The body object is one level; its arguments the rest.
    const res = await runNested(LIMITS.jsonDepth - 1);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it("one level deeper answers 400 json_too_deep before any schema sees it", async () => {
    const body = await expectProblem(await runNested(LIMITS.jsonDepth), 400, "json_too_deep");
    expect(body.limit).toBe(LIMITS.jsonDepth);
  });

  it("thousands of levels are a 400, never a 5xx", async () => {
    await expectProblem(await runNested(5000), 400, "json_too_deep");
    await expectProblem(
      await post("/v1/compile", `{"source":"","config":${nestedJsonText(5000)}}`),
      400,
      "json_too_deep",
    );
  });
});

describe("malformed paths are never a 5xx", () => {
  it("a malformed percent-encoding in {ws} is refused as a client error on every write route", async () => {
    for (const family of ["services", "tools/x/gateway", "access-profiles/p", "secrets/S", "config"]) {
      for (const method of ["POST", "PUT", "DELETE"]) {
        for (const key of [null, BOOTSTRAP]) {
          const res = await api(`/v1/workspaces/%E0%A4%A/${family}`, {
            method,
            body: "{}",
            headers: {
              "content-type": "application/json",
              ...(key ? { authorization: `Bearer ${key}` } : {}),
            },
          });
          expect(res.status, `${method} ${family} ${key ?? "no key"}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `${method} ${family} ${key ?? "no key"}`).toBeLessThan(500);
          await res.body?.cancel();
        }
      }
    }
  });
});
