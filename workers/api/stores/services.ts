// Service rows as the service routes write and page them; the reads the
// gateway shares (findService, toolsOfService, …) stay in shared/services/store.
import { and, desc, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { services, tools } from "../../../shared/db/schema";
import {
  isUniqueViolation,
  liveService,
  renameAround,
  type ServiceRow,
} from "../../../shared/services/store";

/** The new service, or null when the workspace already has one of that name. */
export async function createService(
  db: Database,
  values: typeof services.$inferInsert,
): Promise<ServiceRow | null> {
  try {
    const [created] = await db.insert(services).values(values).returning();
    if (!created) throw new Error("insert returned no row");
    return created;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** Live services, or deleted and legacy ones, newest first, after the service `after` (a uid). */
export const listServices = (
  db: Database,
  workspaceUid: string,
  page: { deleted: boolean; after?: string; limit: number },
) =>
  db
    .select()
    .from(services)
    .where(
      and(
        eq(services.workspaceUid, workspaceUid),
        page.deleted ? or(isNotNull(services.deletedAt), eq(services.legacy, true)) : liveService(),
        page.after ? lt(services.uid, page.after) : undefined,
      ),
    )
    .orderBy(desc(services.uid))
    .limit(page.limit)
    .all();

export type ServiceSettings = Partial<
  Pick<typeof services.$inferInsert, "payloadCapture" | "authorizationSecret" | "timeoutMs">
>;

/** The service with `settings` applied, or undefined when it was deleted meanwhile. */
export const updateServiceSettings = (
  db: Database,
  serviceUid: string,
  settings: ServiceSettings,
): Promise<ServiceRow | undefined> =>
  db
    .update(services)
    .set(settings)
    .where(and(eq(services.uid, serviceUid), isNull(services.deletedAt)))
    .returning()
    .get();

/**
 * Marks the service deleted, takes its tools' public names away and renames
 * the other services' tools that no longer collide, in one batch. Undefined
 * when someone else deleted it first.
 */
export async function markServiceDeleted(
  db: Database,
  workspaceUid: string,
  serviceUid: string,
  deletion: { actor: string; at: string },
): Promise<ServiceRow | undefined> {
  const { updates } = await renameAround(db, workspaceUid, serviceUid, []);
  const [deleted] = await db.batch([
    db
      .update(services)
      .set({ deletedAt: deletion.at, deletedBy: deletion.actor })
      .where(and(eq(services.uid, serviceUid), isNull(services.deletedAt)))
      .returning(),
    db
      .update(tools)
      .set({ publicName: null, updatedAt: deletion.at })
      .where(eq(tools.serviceUid, serviceUid)),
    ...updates,
  ]);
  return deleted[0];
}
