import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const BOOTSTRAP_KEY = "test-bootstrap-key";

/** A request to the api Worker's own fetch handler, as a client would send it. */
export function call(
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const key = options.key === undefined ? BOOTSTRAP_KEY : options.key;
  const headers: Record<string, string> = { ...options.headers };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  return exports.default.fetch(`http://rayrun.test${path}`, { method, headers, body });
}

export async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

export async function expectProblem(res: Response, status: number, code: string) {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await json(res, status);
  expect(body).toMatchObject({ status, code });
  return body;
}

export async function createWorkspace(name = "test") {
  return json<{ uid: string; name: string }>(await call("POST", "/v1/workspaces", { body: { name } }), 201);
}

export async function createKey(ws: string, scopes: string[], actor = "tester") {
  return json<{ id: string; key: string; scopes: string[] }>(
    await call("POST", `/v1/workspaces/${ws}/keys`, { body: { scopes, actor } }),
    201,
  );
}
