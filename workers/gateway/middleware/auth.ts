// Who is calling the gateway. Keys are resolved from D1 and kept in the
// isolate for a short time (a key's scopes and profile never change).
// Revocation is decided on the isolate's lease on the workspace's view
// (`admitOnLease`), on every route before anything runs, and again right before
// an upstream dispatch; a revocation returns to its caller only once every
// older lease has ended, so the key cache never outlives it.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { WorkspaceBinding, WorkspaceView } from "../../../durable-objects/workspace/rpc";
import { LeaseUnavailable, leasedView } from "../../../shared/lease/view";
import { DEFAULT_PROFILE } from "../../../shared/access";
import { bearerToken } from "../../../shared/auth/keys";
import { allows, type Principal } from "../../../shared/auth/principal";
import { resolveCaller } from "../../../shared/auth/resolve";
import { workspaceExists } from "../../../shared/auth/workspace-exists";
import { boundedCache } from "../../../shared/cache";
import { KNOBS } from "../../../shared/knobs";
import type { Problem } from "../../../shared/http/problem";
import { err, ok, type Result } from "../../../shared/result";
import type { Caller } from "../env";
import { workspaceCatalog, type WorkspaceCatalog } from "../caches/catalog-cache";
import { warmView } from "../../../shared/deploy/revision-store";

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
  const found = await resolveCaller(env, token);
  if (found === null) return null;
  const resolved = { principal: found.principal, profile: found.profile ?? DEFAULT_PROFILE };
  cache.set(token, resolved);
  return resolved;
}

/** For tests: forget every resolved key. */
export function clearPrincipalCache(): void {
  cache.clear();
}

/** A caller the gateway admitted, and whether it holds the platform key. */
export type Admission = Result<{ caller: Caller; platform: boolean }, Problem>;

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
 * KNOBS.principalCacheMs old; see `admitOnLease`.
 */
export async function authenticateCaller(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  authorization: string | undefined,
  workspaceUid: string,
): Promise<Admission> {
  const token = bearerToken(authorization);
  if (token === null) {
    return err({
      code: "unauthorized",
      detail: "Send the key as Authorization: Bearer <key>.",
      headers: { "www-authenticate": 'Bearer realm="rayrun"' },
    });
  }
  const resolved = await resolve(env, token);
  if (resolved === null) return err(REVOKED);
  if (!allows(resolved.principal, "tools:call", workspaceUid)) {
    // A key of another workspace is told so, not blamed for a scope it may have; whether this
    // workspace exists is not its holder's to learn.
    const foreign = resolved.principal.kind === "key" && resolved.principal.workspaceUid !== workspaceUid;
    return err({
      code: "forbidden",
      detail: foreign
        ? `This key belongs to another workspace; /mcp/${workspaceUid} and /llm/${workspaceUid} take a key of that workspace.`
        : "The gateway (/mcp and /llm) needs a key with the tools:call scope for this workspace.",
    });
  }
  const platform = resolved.principal.kind === "platform";
  if (platform && !(await workspaceExists(env.DB, workspaceUid))) {
    return err({ code: "workspace_not_found", detail: `Workspace ${workspaceUid} does not exist.` });
  }
  return ok({
    caller: { keyId: resolved.principal.keyId, actor: resolved.principal.actor, profile: resolved.profile },
    platform,
  });
}

/** A caller past both halves of admission, with the view it was admitted on. */
export interface Admitted {
  caller: Caller;
  platform: boolean;
  view: WorkspaceView;
  /** When admission began (isolate clock). */
  receivedAt: number;
}

/** The answer when no lease can be had and the workspace's home does not answer. */
export const UNAVAILABLE: Problem = {
  code: "workspace_unavailable",
  detail: "The workspace's current deployments and keys could not be confirmed; nothing ran. Retry shortly.",
};

/**
 * The second half of admission, decided on the isolate's lease on the
 * workspace's view (no trip home while it holds): a revoked key is refused
 * with 401 here, before anything runs, on every route. The platform key is
 * never revoked this way. `waitUntil` renews a lease past its renewal point
 * after the response.
 */
export async function admitOnLease(
  env: WorkspaceBinding,
  workspaceUid: string,
  admitted: { caller: Caller; platform: boolean },
  waitUntil?: (promise: Promise<unknown>) => void,
): Promise<Result<WorkspaceView, Problem>> {
  let leased;
  try {
    leased = await leasedView(env, workspaceUid, waitUntil);
  } catch (error) {
    if (error instanceof LeaseUnavailable) return err(UNAVAILABLE);
    throw error;
  }
  if (!admitted.platform && leased.view.revoked.includes(admitted.caller.keyId)) return err(REVOKED);
  return ok(leased.view);
}

/**
 * Both halves of admission for `/mcp/{ws}` and `/llm/{ws}/…`. On an isolate
 * that has not seen the key yet, the lease is asked for while D1 resolves the
 * key, so a cold call pays one round for the two rather than two in a row (a
 * lease of a workspace the key turns out not to reach is simply not used). A
 * view the isolate has not taken before starts loading the revisions it
 * points at, beside the catalog the call reads next.
 */
export async function admit(
  env: Pick<Env, "DB" | "CODE" | "RAYRUN_BOOTSTRAP_KEY"> & WorkspaceBinding,
  authorization: string | undefined,
  workspaceUid: string,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<Result<Admitted, Problem>> {
  const receivedAt = Date.now();
  const token = bearerToken(authorization);
  if (token !== null && !cache.has(token)) {
    // Joined by admitOnLease below; its failure is admitOnLease's to report.
    leasedView(env, workspaceUid, waitUntil).catch(() => undefined);
  }
  const auth = await authenticateCaller(env, authorization, workspaceUid);
  if (!auth.ok) return auth;
  const leased = await admitOnLease(env, workspaceUid, auth.value, waitUntil);
  if (!leased.ok) return leased;
  const warming = warmView(env, workspaceUid, leased.value);
  if (warming !== null) waitUntil(warming);
  return ok({ caller: auth.value.caller, platform: auth.value.platform, view: leased.value, receivedAt });
}

/** A route behind `requireAdmission`: the caller it admitted is `c.get("admitted")`. */
export type AdmittedEnv = { Bindings: Env; Variables: { admitted: Admitted } };

/**
 * Admits the caller of the route's `:ws` before the body is read, so strangers
 * cannot make us buffer one. `refuse` words the refusal as the route answers
 * its errors; `authorization` finds the key where the route's clients send it.
 */
export const requireAdmission = <E extends AdmittedEnv>(
  refuse: (c: Context<E>, problem: Problem) => Response,
  authorization: (c: Context<E>) => string | undefined = (c) => c.req.header("authorization"),
) =>
  createMiddleware<E>(async (c, next) => {
    const ws = c.req.param("ws") ?? "";
    const admitted = await admit(c.env, authorization(c), ws, (p) => c.executionCtx.waitUntil(p));
    if (!admitted.ok) return refuse(c, admitted.error);
    c.set("admitted", admitted.value);
    return next();
  });

/**
 * Off the tool-call hot path: the key is still unrevoked, and the workspace's
 * catalog at the lease's catalog version (an isolate copy at that version, or
 * read afresh).
 */
export async function currentCatalog(
  env: Pick<Env, "DB"> & WorkspaceBinding,
  workspaceUid: string,
  admitted: { caller: Caller; platform: boolean },
): Promise<Result<WorkspaceCatalog, Problem>> {
  const admission = await admitOnLease(env, workspaceUid, admitted);
  if (!admission.ok) return admission;
  return ok(
    await workspaceCatalog(env, workspaceUid, admitted.caller.profile, { version: admission.value.catalog }),
  );
}
