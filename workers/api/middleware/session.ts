// Browser sessions: the `rayrun_session` cookie (HttpOnly, SameSite=Strict,
// Secure except on localhost), the user principal a session stands for, and
// the CSRF check on cookie-authenticated writes. The cookie value is random;
// the server keeps only its SHA-256 hash, beside the session's CSRF token.
import type { Context } from "hono";
import { generateCookie, getCookie, setCookie } from "hono/cookie";
import { secretsEqual, sha256Hex } from "../../../shared/auth/keys";
import { ROLE_SCOPES, type UserPrincipal } from "../../../shared/auth/principal";
import { ProblemException } from "../../../shared/http/problem";
import { newSecret } from "../../../shared/ids";
import { createSession, findSession, type SessionRow } from "../stores/sessions";
import type { UserRow } from "../stores/users";
import type { ApiEnv } from "../types";

export const SESSION_COOKIE = "rayrun_session";
/** A session lasts 12 hours from sign-in; it is not extended by use. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** A sign-in link may be used once, within 24 hours. */
export const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;
export const CSRF_HEADER = "x-csrf-token";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Browsers drop Secure cookies over plain http, which local development uses. */
const isLocal = (c: Context) => LOCAL_HOSTS.has(new URL(c.req.url).hostname);

const cookieOptions = (c: Context, maxAge: number) =>
  ({ path: "/", httpOnly: true, sameSite: "Strict", secure: !isLocal(c), maxAge }) as const;

/** The Set-Cookie value that removes the session cookie. */
export const clearedSessionCookie = (c: Context) => generateCookie(SESSION_COOKIE, "", cookieOptions(c, 0));

export const sessionCookieOf = (c: Context): string | undefined => getCookie(c, SESSION_COOKIE) || undefined;

/** What the session endpoints answer. */
export const sessionView = (session: SessionRow, user: UserRow) => ({
  user: { id: user.id, name: user.name, email: user.email, role: user.role },
  workspace: session.workspaceUid,
  csrfToken: session.csrfToken,
  expiresAt: session.expiresAt,
});

/** Starts a session for `user`: stored (hash only), its cookie set on the answer. */
export async function startSession(c: Context<ApiEnv>, user: UserRow) {
  const value = newSecret();
  const now = Date.now();
  const session: SessionRow = {
    idHash: await sha256Hex(value),
    userId: user.id,
    workspaceUid: user.workspaceUid,
    csrfToken: newSecret(),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + SESSION_TTL_MS).toISOString(),
  };
  await createSession(c.var.db, session);
  setCookie(c, SESSION_COOKIE, value, cookieOptions(c, SESSION_TTL_MS / 1000));
  return sessionView(session, user);
}

/** The session of the request's cookie with its user, or undefined (no cookie, unknown, expired). */
export async function currentSession(c: Context<ApiEnv>) {
  const value = sessionCookieOf(c);
  if (value === undefined) return undefined;
  return findSession(c.var.db, await sha256Hex(value), new Date().toISOString());
}

export const userPrincipal = (session: SessionRow, user: UserRow): UserPrincipal => ({
  kind: "user",
  actor: user.name,
  keyId: `user:${user.id}`,
  userId: user.id,
  workspaceUid: user.workspaceUid,
  role: user.role,
  scopes: ROLE_SCOPES[user.role],
  sessionId: session.idHash,
});

/** 403 `csrf_failed` unless a write carries the session's token in `x-csrf-token`. */
export async function requireCsrf(c: Context, session: SessionRow): Promise<void> {
  if (SAFE_METHODS.has(c.req.method)) return;
  const sent = c.req.header(CSRF_HEADER);
  if (sent !== undefined && (await secretsEqual(sent, session.csrfToken))) return;
  throw new ProblemException({
    code: "csrf_failed",
    detail: `Writes with the session cookie must send the session's csrfToken as ${CSRF_HEADER}.`,
  });
}

/** 401 for a cookie that names no live session; the answer also removes the cookie. */
export const sessionEnded = (c: Context) =>
  new ProblemException({
    code: "unauthorized",
    detail: "The session has expired or ended; sign in again.",
    headers: { "set-cookie": clearedSessionCookie(c) },
  });

/** The user principal of the request's cookie, CSRF-checked for writes; null without a cookie. */
export async function sessionPrincipal(c: Context<ApiEnv>): Promise<UserPrincipal | null> {
  if (sessionCookieOf(c) === undefined) return null;
  const found = await currentSession(c);
  if (found === undefined) throw sessionEnded(c);
  await requireCsrf(c, found.session);
  return userPrincipal(found.session, found.user);
}
