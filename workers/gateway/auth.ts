// Who is calling the gateway. Keys are resolved from D1 and kept in the
// isolate for a short time (a key's scopes and profile never change).
// Revocation is always asked of the WorkspaceObject: in the per-call round
// trip before an upstream dispatch, in the LLM proxy's per-call round trip
// before its hooks (`llmCallState`), and before anything else runs on the other
// routes (`keyRevoked`), so the cache never outlives a revocation.
import { workspaceObject, type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { keyProfile, DEFAULT_PROFILE } from "../../shared/access";
import { bearerToken } from "../../shared/auth/keys";
import { allows, type Principal } from "../../shared/auth/principal";
import { resolvePrincipal } from "../../shared/auth/resolve";
import { workspaceExists } from "../../shared/auth/workspace-exists";
import { boundedCache } from "../../shared/cache";
import { KNOBS } from "../../shared/knobs";
import type { Problem } from "../../shared/http/problem";
import type { Caller } from "./tool-call/call-types";
import { workspaceCatalog, type WorkspaceCatalog } from "./caches/catalog-cache";

interface Resolved {
  principal: Principal;
  profile: string;
}

/**
 * Keyed by the token itself: hashing it first (as D1 lookups do) cost more per
 * call than the rest of authentication, and the token is in this isolate's
 * memory for the request anyway. A resolved key stays KNOBS.principalCacheMs.
 */
const cache = boundedCache<string, Resolved>({
  entries: KNOBS.principalCacheEntries,
  ttlMs: KNOBS.principalCacheMs,
});

async function resolve(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  token: string,
): Promise<Resolved | null> {
  const hit = cache.get(token);
  if (hit !== undefined) return hit;
  const principal = await resolvePrincipal(env, token);
  if (principal === null) return null;
  const profile = principal.kind === "key" ? await keyProfile(env.DB, principal.keyId) : DEFAULT_PROFILE;
  const resolved = { principal, profile };
  cache.set(token, resolved);
  return resolved;
}

/** For tests: forget every resolved key. */
export function clearPrincipalCache(): void {
  cache.clear();
}

/** A caller the gateway admitted, and whether it holds the platform key. */
export type Admission = { ok: true; caller: Caller; platform: boolean } | { ok: false; problem: Problem };

/** The answer to a key that is unknown or revoked (the same, so neither is told apart). */
export const REVOKED: Problem = {
  code: "unauthorized",
  detail: "The API key is not valid or has been revoked.",
  headers: { "www-authenticate": 'Bearer realm="rayrun", error="invalid_token"' },
};

/**
 * The caller of `/mcp/{ws}` or `/llm/{ws}/…` with `tools:call` for an existing
 * workspace, or the problem to answer (401, 403, 404 workspace_not_found).
 * Revocation is not decided here: the isolate's copy of a key may be up to
 * KNOBS.principalCacheMs old; see `keyRevoked`.
 */
export async function authenticateCaller(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  authorization: string | undefined,
  workspaceUid: string,
): Promise<Admission> {
  const token = bearerToken(authorization);
  if (token === null) {
    return {
      ok: false,
      problem: {
        code: "unauthorized",
        detail: "Send the key as Authorization: Bearer <key>.",
        headers: { "www-authenticate": 'Bearer realm="rayrun"' },
      },
    };
  }
  const resolved = await resolve(env, token);
  if (resolved === null) return { ok: false, problem: REVOKED };
  if (!allows(resolved.principal, "tools:call", workspaceUid)) {
    return {
      ok: false,
      problem: {
        code: "forbidden",
        detail: "The gateway (/mcp and /llm) needs a key with the tools:call scope for this workspace.",
      },
    };
  }
  const platform = resolved.principal.kind === "platform";
  if (platform && !(await workspaceExists(env.DB, workspaceUid))) {
    return {
      ok: false,
      problem: { code: "workspace_not_found", detail: `Workspace ${workspaceUid} does not exist.` },
    };
  }
  return {
    ok: true,
    caller: { keyId: resolved.principal.keyId, actor: resolved.principal.actor, profile: resolved.profile },
    platform,
  };
}

/**
 * The 401 to answer when the caller's key has been revoked, asked of the
 * workspace's Durable Object (the one authority every gateway route uses, so a
 * revocation holds from the next request), or null. The platform key is never
 * revoked this way.
 */
export async function keyRevoked(
  env: WorkspaceBinding,
  workspaceUid: string,
  admitted: { caller: Caller; platform: boolean },
): Promise<Problem | null> {
  if (admitted.platform) return null;
  const revoked = await workspaceObject(env, workspaceUid).isKeyRevoked(admitted.caller.keyId);
  return revoked ? REVOKED : null;
}

/**
 * Off the tool-call hot path: the key is still unrevoked, and the workspace's
 * catalog as it is now (confirmed against the object's version, not an
 * isolate copy), asked of the WorkspaceObject in one round.
 */
export async function currentCatalog(
  env: Pick<Env, "DB"> & WorkspaceBinding,
  workspaceUid: string,
  admitted: { caller: Caller; platform: boolean },
): Promise<{ ok: true; catalog: WorkspaceCatalog } | { ok: false; problem: Problem }> {
  const [revoked, version] = await Promise.all([
    keyRevoked(env, workspaceUid, admitted),
    workspaceObject(env, workspaceUid).catalogVersion(),
  ]);
  if (revoked !== null) return { ok: false, problem: revoked };
  return {
    ok: true,
    catalog: await workspaceCatalog(env, workspaceUid, admitted.caller.profile, { version }),
  };
}
