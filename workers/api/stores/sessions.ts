// Browser sessions and the spending of sign-in links. The cookie value and the
// link token are looked up by their SHA-256 hashes, the only form stored. Times
// are ISO-8601 UTC strings of one format, so they compare as text.
import { and, eq, gt, inArray, isNull, lt } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { sessions, signInLinks, users } from "../../../shared/db/schema";
import type { UserRow } from "./users";

export type SessionRow = typeof sessions.$inferSelect;

/**
 * Marks an unused, unexpired link used and answers whose it was; undefined for
 * an unknown, used or expired link. One conditional update: two requests racing
 * with one link cannot both spend it.
 */
export const spendSignInLink = (db: Database, tokenHash: string, now: string) =>
  db
    .update(signInLinks)
    .set({ usedAt: now })
    .where(
      and(eq(signInLinks.tokenHash, tokenHash), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, now)),
    )
    .returning({ userId: signInLinks.userId, workspaceUid: signInLinks.workspaceUid })
    .get();

/** Stores a session and the user's sign-in time together. */
export async function createSession(db: Database, values: SessionRow): Promise<void> {
  await db.batch([
    db.insert(sessions).values(values),
    db.update(users).set({ lastSignInAt: values.createdAt }).where(eq(users.id, values.userId)),
  ]);
}

/** The unexpired session with this hash and its user (as the user is now: roles change). */
export async function findSession(
  db: Database,
  idHash: string,
  now: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .get();
  return row;
}

export const deleteSession = (db: Database, idHash: string) =>
  db.delete(sessions).where(eq(sessions.idHash, idHash)).run();

/**
 * Deletes up to `limit` expired sessions and up to `limit` expired sign-in links
 * (used or not: an expired link is refused either way). Bounded, like the log
 * retention sweep it runs beside.
 */
export async function sweepExpired(
  db: Database,
  now: string,
  limit = 500,
): Promise<{ sessions: number; signInLinks: number }> {
  const expiredSessions = db
    .select({ id: sessions.idHash })
    .from(sessions)
    .where(lt(sessions.expiresAt, now))
    .limit(limit);
  const expiredLinks = db
    .select({ id: signInLinks.tokenHash })
    .from(signInLinks)
    .where(lt(signInLinks.expiresAt, now))
    .limit(limit);
  const [s, l] = await db.batch([
    db.delete(sessions).where(inArray(sessions.idHash, expiredSessions)).returning({ id: sessions.idHash }),
    db
      .delete(signInLinks)
      .where(inArray(signInLinks.tokenHash, expiredLinks))
      .returning({ id: signInLinks.tokenHash }),
  ]);
  return { sessions: s.length, signInLinks: l.length };
}
