// Access profile rows: which tools a key's profile may call and when calls need approval.
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../../../shared/db/client";
import { accessProfiles } from "../../../shared/db/schema";

export type AccessProfileRow = typeof accessProfiles.$inferSelect;
export type AccessProfileValues = Omit<AccessProfileRow, "workspaceUid" | "name">;

export const listAccessProfiles = (db: Database, workspaceUid: string): Promise<AccessProfileRow[]> =>
  db
    .select()
    .from(accessProfiles)
    .where(eq(accessProfiles.workspaceUid, workspaceUid))
    .orderBy(asc(accessProfiles.name))
    .all();

export const findAccessProfile = (
  db: Database,
  workspaceUid: string,
  name: string,
): Promise<AccessProfileRow | undefined> =>
  db
    .select()
    .from(accessProfiles)
    .where(and(eq(accessProfiles.workspaceUid, workspaceUid), eq(accessProfiles.name, name)))
    .get();

/** Creates the profile or replaces every setting of it. */
export const putAccessProfile = (
  db: Database,
  workspaceUid: string,
  name: string,
  values: AccessProfileValues,
): Promise<AccessProfileRow> =>
  db
    .insert(accessProfiles)
    .values({ workspaceUid, name, ...values })
    .onConflictDoUpdate({ target: [accessProfiles.workspaceUid, accessProfiles.name], set: values })
    .returning()
    .get();
