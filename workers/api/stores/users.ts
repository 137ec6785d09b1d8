// Browser users of a workspace and their one-use sign-in links. Only a link
// token's hash is stored; removing a user removes its links and sessions too.
import { and, asc, desc, eq } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { sessions, signInLinks, type UserRole, users } from "../../../shared/db/schema";
import { err, ok, type Result } from "../../../shared/result";

export type UserRow = typeof users.$inferSelect;

/** The stored user, or which of its fields another user of the workspace already has. */
export type CreateUserOutcome = Result<UserRow, { taken: "name" | "email" }>;

/** Stores a user unless its name (or email) is taken in the workspace; nothing is written then. */
export async function createUser(
  db: Database,
  values: {
    id: string;
    workspaceUid: string;
    name: string;
    email: string | null;
    role: UserRole;
    createdBy: string;
  },
): Promise<CreateUserOutcome> {
  const row = await db.insert(users).values(values).onConflictDoNothing().returning().get();
  if (row) return ok(row);
  const sameName = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.workspaceUid, values.workspaceUid), eq(users.name, values.name)))
    .get();
  return err({ taken: sameName ? "name" : "email" });
}

/** The workspace's users, oldest first. */
export const listUsers = (db: Database, workspaceUid: string): Promise<UserRow[]> =>
  db.select().from(users).where(eq(users.workspaceUid, workspaceUid)).orderBy(asc(users.id)).all();

export const findUser = (db: Database, workspaceUid: string, id: string): Promise<UserRow | undefined> =>
  db
    .select()
    .from(users)
    .where(and(eq(users.workspaceUid, workspaceUid), eq(users.id, id)))
    .get();

/** The user with its new role, or undefined when it does not exist. Sessions read the role per request. */
export const setUserRole = (
  db: Database,
  workspaceUid: string,
  id: string,
  role: UserRole,
): Promise<UserRow | undefined> =>
  db
    .update(users)
    .set({ role })
    .where(and(eq(users.workspaceUid, workspaceUid), eq(users.id, id)))
    .returning()
    .get();

/** Removes a user with its sessions and sign-in links, in one batch; false when there was no such user. */
export async function deleteUser(db: Database, workspaceUid: string, id: string): Promise<boolean> {
  const [, , removed] = await db.batch([
    db.delete(sessions).where(and(eq(sessions.workspaceUid, workspaceUid), eq(sessions.userId, id))),
    db.delete(signInLinks).where(and(eq(signInLinks.workspaceUid, workspaceUid), eq(signInLinks.userId, id))),
    db
      .delete(users)
      .where(and(eq(users.workspaceUid, workspaceUid), eq(users.id, id)))
      .returning({ id: users.id }),
  ]);
  return removed.length > 0;
}

export const createSignInLink = (db: Database, values: typeof signInLinks.$inferInsert) =>
  db.insert(signInLinks).values(values).run();

/**
 * The user with email `email` (lower-cased) in `workspaceUid`, or, without a
 * workspace, in the workspace it most recently signed in to (an email may be
 * invited into several).
 */
export const userByEmail = (
  db: Database,
  email: string,
  workspaceUid: string | undefined,
): Promise<UserRow | undefined> =>
  db
    .select()
    .from(users)
    .where(
      and(
        eq(users.email, email),
        workspaceUid === undefined ? undefined : eq(users.workspaceUid, workspaceUid),
      ),
    )
    .orderBy(desc(users.lastSignInAt), asc(users.id))
    .limit(1)
    .get();
