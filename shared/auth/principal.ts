export const SCOPES = ["hooks:read", "hooks:write", "tools:call", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** The roles of browser users (shared/db/schema-users.ts stores them). */
export const ROLES = ["viewer", "editor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * What each role may do, as the scopes an API key would need: a viewer reads
 * what a hooks:read key reads, an editor changes hooks (reset aside, see
 * `requireScope`'s user role), an admin does everything in its workspace.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ["hooks:read"],
  editor: ["hooks:read", "hooks:write"],
  admin: ["admin"],
};

/** A caller with an API key: the bootstrap key (a platform admin) or a workspace key. */
export type KeyPrincipal =
  | { kind: "platform"; actor: string; keyId: "bootstrap" }
  | { kind: "key"; actor: string; keyId: string; workspaceUid: string; scopes: readonly Scope[] };

/**
 * A browser user signed in to one workspace. `keyId` is `user:<userId>`: what
 * records that name a key (versions, test runs) and the compilation quota name.
 */
export interface UserPrincipal {
  kind: "user";
  actor: string;
  keyId: `user:${string}`;
  userId: string;
  workspaceUid: string;
  role: Role;
  scopes: readonly Scope[];
  sessionId: string;
}

/** Who is calling. Only the api Worker knows users; the gateway takes keys. */
export type Principal = KeyPrincipal | UserPrincipal;

/**
 * Whether `principal` may act with `scope`, optionally inside one workspace.
 * A workspace key's or user's `admin` scope covers every scope inside its own workspace only;
 * `hooks:write` includes `hooks:read`.
 */
export function allows(principal: Principal, scope: Scope, workspaceUid?: string): boolean {
  if (principal.kind === "platform") return true;
  if (workspaceUid !== undefined && principal.workspaceUid !== workspaceUid) return false;
  if (principal.scopes.includes("admin") || principal.scopes.includes(scope)) return true;
  // Whoever may change hooks may read them.
  return scope === "hooks:read" && principal.scopes.includes("hooks:write");
}

/**
 * Whether `principal` sees captured run details (messages, data, errors) in
 * `workspaceUid`: keys that may write hooks; users only as admins.
 */
export function seesRunDetails(principal: Principal, workspaceUid: string): boolean {
  if (principal.kind === "user")
    return principal.role === "admin" && allows(principal, "admin", workspaceUid);
  return allows(principal, "hooks:write", workspaceUid);
}
