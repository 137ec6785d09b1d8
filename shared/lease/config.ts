// The workspace config as of a catalog version. Every config write bumps the
// catalog version after its D1 write, so a copy read after the version was
// seen holds every write up to it; hot paths take the version from their lease
// and read D1 only when the version moved (or the copy was dropped).
import { readWorkspaceConfig, type WorkspaceConfig } from "../config";
import { boundedCache } from "../cache";
import { KNOBS } from "../knobs";

const copies = boundedCache<string, Promise<WorkspaceConfig>>({ entries: KNOBS.configCacheEntries });

/** For tests: forget every config copy. */
export function clearConfigCopies(): void {
  copies.clear();
}

export function configAt(
  env: { DB: D1Database },
  workspaceUid: string,
  catalogVersion: number,
): Promise<WorkspaceConfig> {
  const key = `${workspaceUid}\n${catalogVersion}`;
  const held = copies.get(key);
  if (held !== undefined) return held;
  const read = readWorkspaceConfig(env.DB, workspaceUid);
  copies.set(key, read);
  // A failed read is not kept: the next call reads again.
  read.catch(() => copies.delete(key));
  return read;
}
