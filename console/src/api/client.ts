// The one way the console talks to the API: hono's client typed by the API's own routes, over
// same-origin fetch with the session cookie, the CSRF token on every write, and failures thrown as
// ProblemError so pages show the problem's title, detail and errors[]. Only types come from the
// Worker (`import type`): the bundle gets hono's small client and none of the server.
import { hc } from "hono/client";
import type {
  ApiApp,
  FileTestApp,
  FileTypesApp,
  LifecycleApp,
  ToolConsoleApp,
} from "../../../workers/api/app";
import { networkProblem, ProblemError } from "./problem";
import { missingWorkspace, session } from "./session";

const WORKSPACE_PATH = /^\/v1\/workspaces\/([^/]+)/;

async function consoleFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const method = init.method ?? "GET";
  const headers = new Headers(init.headers);
  if (!headers.has("accept")) headers.set("accept", "application/json");
  const csrf = session.value?.csrfToken;
  if (method !== "GET" && csrf !== undefined) headers.set("x-csrf-token", csrf);
  let response: Response;
  try {
    response = await fetch(input, { ...init, headers, credentials: "same-origin" });
  } catch (error) {
    throw networkProblem(error);
  }
  if (!response.ok) {
    const problem = await ProblemError.from(response);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const path = new URL(url, location.href).pathname;
    // The session ended (expired, signed out elsewhere): back to the signed-out state.
    if (problem.status === 401 && path !== "/v1/session") session.value = null;
    const ws = WORKSPACE_PATH.exec(path)?.[1];
    if (problem.code === "workspace_not_found" && ws !== undefined) {
      missingWorkspace.value = decodeURIComponent(ws);
    }
    throw problem;
  }
  return response;
}

const options = { fetch: consoleFetch };

export const api = hc<ApiApp>("/", options);

/** The lifecycle routes (drafts, versions, deployments, logs) under a target's base path. */
export const lifecycleApi = (base: string) => hc<LifecycleApp>(base, options);
/** A tool adapter's test console and declarations under its base path (`…/tools/{tool}/hook`). */
export const toolConsoleApi = (base: string) => hc<ToolConsoleApp>(base, options);
/** A workspace file's test console under its base path (`…/files/{path}`). */
export const fileTestApi = (base: string) => hc<FileTestApp>(base, options);
/** A workspace file's declarations under its base path. */
export const fileTypesApi = (base: string) => hc<FileTypesApp>(base, options);

/** The JSON of a call's answer, typed by its route; failures were already thrown by consoleFetch. */
export async function jsonOf<T>(call: Promise<{ json(): Promise<T> }>): Promise<T> {
  return (await call).json();
}

/** `{ param }` with each value URL-encoded: hono's client puts path parameters in as given. */
export function params<P extends Record<string, string>>(values: P): { param: P } {
  const param = { ...values };
  for (const key of Object.keys(values) as (keyof P)[]) {
    param[key] = encodeURIComponent(String(values[key])) as P[keyof P];
  }
  return { param };
}

/** `{ init: { signal } }`, the per-call options that cancel a request. */
export const cancelledBy = (signal: AbortSignal | undefined) => ({ init: { signal: signal ?? null } });

/**
 * Per-call options sending `body` as JSON to a route whose body is optional: such a route reads it
 * itself, so its type is not among the route's inputs.
 */
export const optionalJson = (body: unknown, headers: Record<string, string> = {}) => ({
  init: { body: JSON.stringify(body) },
  headers: { "content-type": "application/json", ...headers },
});

/** `/v1/workspaces/<ws>` with each further segment URL-encoded: a lifecycle target's base path. */
export function wsPath(ws: string, ...segments: string[]): string {
  return ["/v1/workspaces", ws, ...segments].map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join("/");
}
