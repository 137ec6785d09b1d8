// Workspace rows: the tenancy root every workspace route checks before its own reads.
import { eq } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { workspaces } from "../../../shared/db/schema";

export type WorkspaceRow = typeof workspaces.$inferSelect;

export const findWorkspace = (db: Database, uid: string): Promise<WorkspaceRow | undefined> =>
  db.select().from(workspaces).where(eq(workspaces.uid, uid)).get();

export async function createWorkspace(
  db: Database,
  values: typeof workspaces.$inferInsert,
): Promise<WorkspaceRow> {
  const [created] = await db.insert(workspaces).values(values).returning();
  if (!created) throw new Error("insert returned no row");
  return created;
}
