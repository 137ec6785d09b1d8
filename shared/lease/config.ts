// The workspace config, and sealed secrets, as of a catalog version. Every
// config and secret write bumps the catalog version after its D1 write, so a
// copy read after the version was seen holds every write up to it; hot paths
// take the version from their lease and read D1 only when the version moved
// (or the copy was dropped). Secrets are kept sealed: they are opened per use.
import { readWorkspaceConfig, type WorkspaceConfig } from "../config";
import { boundedCache } from "../cache";
import { KNOBS } from "../knobs";
import { openSecret, sealedSecretQuery } from "../secrets";

const copies = boundedCache<string, Promise<WorkspaceConfig>>({ entries: KNOBS.configCacheEntries });
type Sealed = Awaited<ReturnType<ReturnType<typeof sealedSecretQuery>["get"]>>;
const sealedCopies = boundedCache<string, Promise<Sealed>>({ entries: KNOBS.configCacheEntries });

/** For tests: forget every config and secret copy. */
export function clearConfigCopies(): void {
  copies.clear();
  sealedCopies.clear();
}

/** Workspace secret `name` as of catalog `version`, opened with `rootKey`; null when it is not set. */
export async function secretAt(
  env: { DB: D1Database },
  rootKey: string,
  workspaceUid: string,
  catalogVersion: number,
  name: string,
): Promise<string | null> {
  const key = `${workspaceUid}\n${catalogVersion}\n${name}`;
  let read = sealedCopies.get(key);
  if (read === undefined) {
    read = sealedSecretQuery(env.DB, workspaceUid, name).get();
    sealedCopies.set(key, read);
    read.catch(() => sealedCopies.delete(key));
  }
  const sealed = await read;
  return sealed ? openSecret(rootKey, workspaceUid, name, sealed) : null;
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
