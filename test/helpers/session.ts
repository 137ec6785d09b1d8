// Browser users for route tests: invite one with a role (as the platform
// admin), spend its sign-in link, and send requests with its session cookie
// (and, for writes, its CSRF token).
import { exports } from "cloudflare:workers";
import { call, json } from "./api";

export type Role = "viewer" | "editor" | "admin";

export interface Invited {
  user: { id: string; name: string; email: string | null; role: Role };
  signIn: { url: string; expiresAt: string };
}

export interface Session {
  user: { id: string; name: string; email: string | null; role: Role };
  workspace: string;
  csrfToken: string;
  expiresAt: string;
}

export interface SignedIn extends Session {
  /** `rayrun_session=<value>`, as a Cookie header sends it. */
  cookie: string;
}

export const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, "");

export async function invite(
  ws: string,
  role: Role,
  name = `${role}-${crypto.randomUUID().slice(0, 8)}`,
  email?: string,
) {
  return json<Invited>(
    await call("POST", `/v1/workspaces/${ws}/users`, { body: { name, role, ...(email ? { email } : {}) } }),
    201,
  );
}

/** The `name=value` part of the answer's session cookie, or null when it sets none. */
export function sessionCookie(res: Response): string | null {
  const header = res.headers.get("set-cookie");
  const pair = header?.split(";")[0]?.trim();
  return pair?.startsWith("rayrun_session=") && pair !== "rayrun_session=" ? pair : null;
}

/** POST /v1/session with `token` (no key, no cookie). */
export const exchange = (token: string, origin = "http://rayrun.test") =>
  exports.default.fetch(`${origin}/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });

/** A signed-in user of `ws` with `role`. */
export async function signIn(ws: string, role: Role, name?: string): Promise<SignedIn> {
  const invited = await invite(ws, role, name);
  const res = await exchange(tokenOf(invited.signIn.url));
  const cookie = sessionCookie(res);
  const session = await json<Session>(res, 200);
  if (cookie === null) throw new Error("no session cookie");
  return { ...session, cookie };
}

/**
 * A request with the user's cookie. Writes carry the CSRF token unless
 * `csrf` says otherwise (`null`: no header; a string: that token).
 */
export function asUser(
  s: { cookie: string; csrfToken: string },
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; csrf?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = { cookie: s.cookie, ...options.headers };
  const csrf = options.csrf === undefined ? s.csrfToken : options.csrf;
  if (method !== "GET" && csrf !== null) headers["x-csrf-token"] = csrf;
  return call(method, path, { key: null, body: options.body, headers });
}
