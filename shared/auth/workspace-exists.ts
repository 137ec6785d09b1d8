// Whether a workspace exists. Workspaces are never deleted, so an isolate keeps
// every uid it has seen exist; a miss is read again each time (a workspace
// created a moment ago must be found). Only the platform key can name a
// workspace that may not exist: a workspace key's own workspace always does.
import { eq } from "drizzle-orm";
import { database } from "../db/client";
import { workspaces } from "../db/schema";

const KNOWN_ENTRIES = 4096;
const known = new Set<string>();

export async function workspaceExists(db: D1Database, uid: string): Promise<boolean> {
  if (known.has(uid)) return true;
  const row = await database(db)
    .select({ uid: workspaces.uid })
    .from(workspaces)
    .where(eq(workspaces.uid, uid))
    .get();
  if (row === undefined) return false;
  if (known.size >= KNOWN_ENTRIES) known.clear();
  known.add(uid);
  return true;
}
