export const SCOPES = ["hooks:read", "hooks:write", "tools:call", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling. The bootstrap key is a platform admin. */
export type Principal =
  | { kind: "platform"; actor: string; keyId: "bootstrap" }
  | { kind: "key"; actor: string; keyId: string; workspaceUid: string; scopes: readonly Scope[] };

/**
 * Whether `principal` may act with `scope`, optionally inside one workspace.
 * A workspace key's `admin` scope covers every scope inside its own workspace only;
 * `hooks:write` includes `hooks:read`.
 */
export function allows(principal: Principal, scope: Scope, workspaceUid?: string): boolean {
  if (principal.kind === "platform") return true;
  if (workspaceUid !== undefined && principal.workspaceUid !== workspaceUid) return false;
  if (principal.scopes.includes("admin") || principal.scopes.includes(scope)) return true;
  // Whoever may change hooks may read them.
  return scope === "hooks:read" && principal.scopes.includes("hooks:write");
}
