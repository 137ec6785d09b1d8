// Who is calling the gateway. Keys are resolved from D1 and kept in the
// isolate for a short time (a key's scopes and profile never change); a revoked
// key is refused by the WorkspaceObject in the per-call round trip before
// dispatch, so the cache never lets a revoked key reach an upstream.
import { keyProfile, DEFAULT_PROFILE } from "../../shared/access";
import { bearerToken } from "../../shared/auth/keys";
import { allows, type Principal } from "../../shared/auth/principal";
import { resolvePrincipal } from "../../shared/auth/resolve";
import { problemResponse } from "../../shared/http/problem";
import type { Caller } from "../../shared/pipeline/call-state";

/** How long a resolved key stays in the isolate. */
export const PRINCIPAL_CACHE_MS = 60_000;
const PRINCIPAL_CACHE_ENTRIES = 4096;

interface Resolved {
  principal: Principal;
  profile: string;
  expiresAt: number;
}

/**
 * Keyed by the token itself: hashing it first (as D1 lookups do) cost more per
 * call than the rest of authentication, and the token is in this isolate's
 * memory for the request anyway.
 */
const cache = new Map<string, Resolved>();

async function resolve(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  token: string,
): Promise<Resolved | null> {
  const now = Date.now();
  const hit = cache.get(token);
  if (hit && hit.expiresAt > now) return hit;
  cache.delete(token);
  const principal = await resolvePrincipal(env, token);
  if (principal === null) return null;
  const profile = principal.kind === "key" ? await keyProfile(env.DB, principal.keyId) : DEFAULT_PROFILE;
  const resolved = { principal, profile, expiresAt: now + PRINCIPAL_CACHE_MS };
  cache.set(token, resolved);
  if (cache.size > PRINCIPAL_CACHE_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  return resolved;
}

/** For tests: forget every resolved key. */
export function clearPrincipalCache(): void {
  cache.clear();
}

/** The caller of `/mcp/{ws}` or `/llm/{ws}/…` with `tools:call`, or the 401/403 problem to answer. */
export async function authenticateCaller(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  authorization: string | undefined,
  workspaceUid: string,
): Promise<{ ok: true; caller: Caller } | { ok: false; response: Response }> {
  const token = bearerToken(authorization);
  if (token === null) {
    return {
      ok: false,
      response: problemResponse({
        code: "unauthorized",
        detail: "Send the key as Authorization: Bearer <key>.",
        headers: { "www-authenticate": 'Bearer realm="rayrun"' },
      }),
    };
  }
  const resolved = await resolve(env, token);
  if (resolved === null) {
    return {
      ok: false,
      response: problemResponse({
        code: "unauthorized",
        detail: "The API key is not valid or has been revoked.",
        headers: { "www-authenticate": 'Bearer realm="rayrun", error="invalid_token"' },
      }),
    };
  }
  if (!allows(resolved.principal, "tools:call", workspaceUid)) {
    return {
      ok: false,
      response: problemResponse({
        code: "forbidden",
        detail: "The gateway (/mcp and /llm) needs a key with the tools:call scope for this workspace.",
      }),
    };
  }
  return {
    ok: true,
    caller: { keyId: resolved.principal.keyId, actor: resolved.principal.actor, profile: resolved.profile },
  };
}
