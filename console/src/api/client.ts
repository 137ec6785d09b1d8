// The one way the console talks to the API: same-origin fetch with the session cookie, the CSRF token on
// every write, and failures as ProblemError so pages show the problem's title, detail and errors[].
import { networkProblem, ProblemError } from "./problem";
import { session } from "./session";

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A response's body and the headers pages need (ETag for If-Match). */
export interface ApiResponse<T> {
  data: T;
  status: number;
  etag: string | null;
  headers: Headers;
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const csrf = session.value?.csrfToken;
  if (method !== "GET" && csrf !== undefined) headers["x-csrf-token"] = csrf;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    throw networkProblem(error);
  }
  if (!response.ok) {
    const problem = await ProblemError.from(response);
    // The session ended (expired, signed out elsewhere): back to the signed-out state.
    if (problem.status === 401 && path !== "/v1/session") session.value = null;
    throw problem;
  }
  const type = response.headers.get("content-type") ?? "";
  let data: unknown = null;
  if (response.status !== 204) data = type.includes("json") ? await response.json() : await response.text();
  return {
    data: data as T,
    status: response.status,
    etag: response.headers.get("etag"),
    headers: response.headers,
  };
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>(path, { signal }).then((r) => r.data),
  post: <T>(path: string, body?: unknown, headers?: Record<string, string>) =>
    request<T>(path, { method: "POST", body, headers }).then((r) => r.data),
  put: <T>(path: string, body?: unknown, headers?: Record<string, string>) =>
    request<T>(path, { method: "PUT", body, headers }).then((r) => r.data),
  patch: <T>(path: string, body?: unknown, headers?: Record<string, string>) =>
    request<T>(path, { method: "PATCH", body, headers }).then((r) => r.data),
  delete: <T>(path: string, headers?: Record<string, string>) =>
    request<T>(path, { method: "DELETE", headers }).then((r) => r.data),
};

/** `/v1/workspaces/<ws>` with each further segment URL-encoded. */
export function wsPath(ws: string, ...segments: string[]): string {
  return ["/v1/workspaces", ws, ...segments].map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join("/");
}
