import { signal } from "@preact/signals";
import type { InferResponseType } from "hono/client";
import type { api } from "./client";

export type Session = InferResponseType<typeof api.v1.session.$get, 200>;
export type Role = Session["user"]["role"];

/** The signed-in user, or null before sign-in (and after the session ends). */
export const session = signal<Session | null>(null);

/**
 * A workspace the API answered `workspace_not_found` for: the pages under it give way to one that
 * says so, instead of each showing the refusal of its own request.
 */
export const missingWorkspace = signal<string | null>(null);

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/** Whether the signed-in user's role is at least `role`; the API enforces the same, this only hides controls. */
export function can(role: Role): boolean {
  const current = session.value;
  return current !== null && RANK[current.user.role] >= RANK[role];
}
