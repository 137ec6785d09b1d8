// The history of a lifecycle target's deploy pointers: every deploy, rollback and shadow drop.
import type { Database } from "../../../shared/db/client";
import { hookPointerEvents } from "../../../shared/db/schema-deploy";
import { newId } from "../../../shared/ids";

export type PointerEvent = Omit<typeof hookPointerEvents.$inferInsert, "id">;

export async function recordPointerEvent(db: Database, event: PointerEvent): Promise<void> {
  await db.insert(hookPointerEvents).values({ id: newId("ptr"), ...event });
}
