import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { DescribeRouteOptions } from "hono-openapi";
import { bearerToken } from "../../../shared/auth/keys";
import { allows, type Principal, ROLES, type Role, type Scope } from "../../../shared/auth/principal";
import { resolvePrincipal } from "../../../shared/auth/resolve";
import { workspaceExists } from "../../../shared/auth/workspace-exists";
import { ProblemException } from "../../../shared/http/problem";
import { problems, withSpec } from "../openapi/describe";
import type { ApiEnv } from "../types";
import { sessionPrincipal } from "./session";

/**
 * Who calls: the bearer key when one is sent, else the session cookie (writes
 * with it must carry the CSRF token), else 401.
 */
async function authenticate(c: Context<ApiEnv>): Promise<Principal> {
  const token = bearerToken(c.req.header("authorization"));
  if (token === null) {
    const user = await sessionPrincipal(c);
    if (user !== null) return user;
    throw new ProblemException({
      code: "unauthorized",
      detail: "Send the key as Authorization: Bearer <key>, or sign in.",
      headers: { "www-authenticate": 'Bearer realm="rayrun"' },
    });
  }
  const principal = await resolvePrincipal(c.env, token);
  if (principal === null) {
    throw new ProblemException({
      code: "unauthorized",
      detail: "The API key is not valid or has been revoked.",
      headers: { "www-authenticate": 'Bearer realm="rayrun", error="invalid_token"' },
    });
  }
  return principal;
}

/**
 * Why `principal` may not act in `ws`. A key or session of another workspace is
 * told so rather than blamed for a scope or role it may well have, in one
 * wording whether `ws` exists or not: that is not its holder's to learn (the
 * gateway answers keys the same way).
 */
function refusal(principal: Exclude<Principal, { kind: "platform" }>, scope: Scope, ws?: string): string {
  if (ws !== undefined && principal.workspaceUid !== ws) {
    return principal.kind === "user"
      ? `This session is signed in to another workspace; sign in to ${ws} to work there.`
      : `This key belongs to another workspace; /v1/workspaces/${ws}/… takes a key of that workspace.`;
  }
  return principal.kind === "user"
    ? `The ${principal.role} role may not do this in this workspace.`
    : `This route needs a key with the ${scope} scope for this workspace.`;
}

/**
 * Authenticates the caller and requires `scope`. On routes with a `:ws`
 * parameter a workspace key or user must belong to that workspace, and the workspace
 * must exist (only the platform key can name one that does not). `userRole`:
 * browser users need at least this role besides the scope (reset: admin).
 */
export const requireScope = (scope: Scope, options: { userRole?: Role } = {}) =>
  withSpec(
    createMiddleware<ApiEnv>(async (c, next) => {
      const principal = await authenticate(c);
      const ws = c.req.param("ws");
      if (principal.kind !== "platform" && !allows(principal, scope, ws)) {
        throw new ProblemException({ code: "forbidden", detail: refusal(principal, scope, ws) });
      }
      const { userRole } = options;
      if (principal.kind === "user" && userRole && ROLES.indexOf(principal.role) < ROLES.indexOf(userRole)) {
        throw new ProblemException({
          code: "forbidden",
          detail: `This route needs the ${userRole} role in this workspace.`,
        });
      }
      if (principal.kind === "platform" && ws !== undefined && !(await workspaceExists(c.env.DB, ws))) {
        throw new ProblemException({
          code: "workspace_not_found",
          detail: `Workspace ${ws} does not exist.`,
        });
      }
      c.set("principal", principal);
      await next();
    }),
    {
      "x-rayrun-auth": scope,
      ...(options.userRole ? { "x-rayrun-user-role": options.userRole } : {}),
      responses: problems(401, 403),
    } as DescribeRouteOptions,
  );

/** Platform-wide actions (creating workspaces) need the bootstrap key. */
export const requirePlatformAdmin = withSpec(
  createMiddleware<ApiEnv>(async (c, next) => {
    const principal = await authenticate(c);
    if (principal.kind !== "platform") {
      throw new ProblemException({ code: "forbidden", detail: "This route needs the platform admin key." });
    }
    c.set("principal", principal);
    await next();
  }),
  { "x-rayrun-auth": "platform", responses: problems(401, 403) } as DescribeRouteOptions,
);
