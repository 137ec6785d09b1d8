// Whether a workspace exists. Workspaces are never deleted, so an isolate keeps
// the uids it has seen exist (the most recently asked, up to a bound); a miss
// is read again each time (a workspace created a moment ago must be found).
// Only the platform key can name a workspace that may not exist: a workspace
// key's own workspace always does.
import { eq } from "drizzle-orm";
import { boundedCache } from "../cache";
import { database } from "../db/client";
import { workspaces } from "../db/schema";
import { KNOBS } from "../knobs";

const known = boundedCache<string, true>({ entries: KNOBS.workspaceExistsCacheEntries });

export async function workspaceExists(db: D1Database, uid: string): Promise<boolean> {
  if (known.get(uid) !== undefined) return true;
  const row = await database(db)
    .select({ uid: workspaces.uid })
    .from(workspaces)
    .where(eq(workspaces.uid, uid))
    .get();
  if (row === undefined) return false;
  known.set(uid, true);
  return true;
}
