// Which tools still have hook history. A service with such tools cannot be
// deleted (its hooks must be reset first), and the history-only view of a
// deleted service shows them.
//
// The hook lifecycle owns the history tables; this module only asks. The
// question goes through one replaceable function so that the lifecycle can
// answer it (and tests can fake it) without this module importing upward.

/** Of `toolUids` (all of one workspace), those with at least one stored hook version. */
export type HookHistoryLookup = (
  db: D1Database,
  workspaceUid: string,
  toolUids: readonly string[],
) => Promise<string[]>;

/** D1 binds at most 100 parameters per statement; one is the workspace. */
const CHUNK = 90;

/** Reads `hook_versions` (`workspace_uid`, `target` = `tool:<toolUid>`). */
export const hookVersionsLookup: HookHistoryLookup = async (db, workspaceUid, toolUids) => {
  const found = new Set<string>();
  for (let i = 0; i < toolUids.length; i += CHUNK) {
    const targets = toolUids.slice(i, i + CHUNK).map((uid) => `tool:${uid}`);
    const placeholders = targets.map(() => "?").join(", ");
    const { results } = await db
      .prepare(
        `select distinct target from hook_versions where workspace_uid = ? and target in (${placeholders})`,
      )
      .bind(workspaceUid, ...targets)
      .all<{ target: string }>();
    for (const row of results) found.add(row.target.slice("tool:".length));
  }
  return toolUids.filter((uid) => found.has(uid));
};

let lookup: HookHistoryLookup = hookVersionsLookup;

/** Replaces the lookup (the hook lifecycle wires its own; tests fake it). Returns the previous one. */
export function setHookHistoryLookup(next: HookHistoryLookup): HookHistoryLookup {
  const previous = lookup;
  lookup = next;
  return previous;
}

/** Of `toolUids`, those that still have hook history, in the order given. */
export async function toolsWithHookHistory(
  db: D1Database,
  workspaceUid: string,
  toolUids: readonly string[],
): Promise<string[]> {
  if (toolUids.length === 0) return [];
  const found = new Set(await lookup(db, workspaceUid, toolUids));
  return toolUids.filter((uid) => found.has(uid));
}
