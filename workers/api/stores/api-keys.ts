// API key rows of a workspace. Of a secret only its hash and a display hint
// (rr_… and its last four characters) are stored.
import { and, desc, eq, isNull, lt } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { apiKeyProfiles, apiKeys } from "../../../shared/db/schema";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Stores a key, and its access profile when it is not the default one (no row
 * means the default), in one batch so a key never exists without its profile.
 */
export async function createApiKey(
  db: Database,
  values: typeof apiKeys.$inferInsert & { workspaceUid: string },
  profile: string | null,
): Promise<ApiKeyRow> {
  const insertKey = db.insert(apiKeys).values(values).returning();
  const [[row]] =
    profile === null
      ? [await insertKey]
      : await db.batch([
          insertKey,
          db.insert(apiKeyProfiles).values({ keyId: values.id, workspaceUid: values.workspaceUid, profile }),
        ]);
  if (!row) throw new Error("insert returned no row");
  return row;
}

/** Keys newest first, after the key `after` (a key id) when given. */
export const listApiKeys = (db: Database, workspaceUid: string, page: { after?: string; limit: number }) =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceUid, workspaceUid), page.after ? lt(apiKeys.id, page.after) : undefined))
    .orderBy(desc(apiKeys.id))
    .limit(page.limit)
    .all();

export const findApiKey = (db: Database, workspaceUid: string, id: string): Promise<ApiKeyRow | undefined> =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceUid, workspaceUid), eq(apiKeys.id, id)))
    .get();

/** The key as revoked now, or undefined when it does not exist or was already revoked. */
export const revokeApiKey = (
  db: Database,
  workspaceUid: string,
  id: string,
  at: string,
): Promise<ApiKeyRow | undefined> =>
  db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.workspaceUid, workspaceUid), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning()
    .get();
