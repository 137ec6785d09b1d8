export const SCOPES = ["hooks:read", "hooks:write", "tools:call", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling. The bootstrap key is a platform admin (DESIGN §7). */
export type Principal =
  | { kind: "platform"; actor: string; keyId: "bootstrap" }
  | { kind: "key"; actor: string; keyId: string; workspaceUid: string; scopes: readonly Scope[] };

/**
 * Whether `principal` may act with `scope`, optionally inside one workspace.
 * A workspace key's `admin` scope covers every scope inside its own workspace only.
 */
export function allows(principal: Principal, scope: Scope, workspaceUid?: string): boolean {
  if (principal.kind === "platform") return true;
  if (workspaceUid !== undefined && principal.workspaceUid !== workspaceUid) return false;
  return principal.scopes.includes("admin") || principal.scopes.includes(scope);
}
