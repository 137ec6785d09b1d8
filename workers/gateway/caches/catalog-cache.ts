// The isolate's copy of what the gateway reads from D1 about a workspace's
// tools, so a call needs no D1 read. An entry is tagged with the catalog
// version its caller took from its lease *before* the D1 read; writers bump
// that version after their D1 write (and their bump returns only once older
// leases have ended), so an entry whose tag equals the lease's version holds
// every completed write. Callers compare tags against their lease and reload
// on a mismatch. The TTL only bounds how long a writer that failed between its
// D1 write and its bump can leave a stale entry.
import type { WorkspaceBinding } from "../../../durable-objects/workspace/rpc";
import type { AccessProfile } from "../../../shared/access";
import { loadNamedCatalog, type CatalogService, type CatalogTool } from "../../../shared/services/catalog";
import type { WorkspaceConfig } from "../../../shared/config";
import { configAt } from "../../../shared/lease/config";
import { boundedCache } from "../../../shared/cache";
import { KNOBS } from "../../../shared/knobs";

export interface WorkspaceCatalog {
  /** The catalog version this copy is at least as new as. */
  version: number;
  /** Whether it was read from D1 for this request (not an isolate copy). */
  fresh: boolean;
  byName: ReadonlyMap<string, CatalogTool>;
  tools: readonly CatalogTool[];
  /** Live services, by name: where resources, prompts and completions come from. */
  services: readonly CatalogService[];
  workspace: AccessProfile;
  key: AccessProfile | null;
  /** The workspace config's per-key rates (config writes bump the catalog version too). */
  rateLimits: WorkspaceConfig["rateLimits"];
}

type CatalogEnv = Pick<Env, "DB"> & WorkspaceBinding;

/** Copies by workspace and profile, each served for KNOBS.catalogCacheMs after it was read. */
const cache = boundedCache<string, WorkspaceCatalog>({
  entries: KNOBS.catalogCacheEntries,
  ttlMs: KNOBS.catalogCacheMs,
});
const key = (workspaceUid: string, profile: string) => `${workspaceUid}\n${profile}`;

/** For tests: forget every cached catalog. */
export function clearCatalogCache(): void {
  cache.clear();
}

/**
 * The workspace's catalog as seen by a key with `profile` at catalog
 * `version` (the caller's lease's): the isolate's copy when it is young enough
 * and at that version, otherwise read afresh.
 */
export async function workspaceCatalog(
  env: CatalogEnv,
  workspaceUid: string,
  profile: string,
  options: { version: number; reload?: boolean },
): Promise<WorkspaceCatalog> {
  const k = key(workspaceUid, profile);
  const hit = options.reload ? undefined : cache.get(k);
  if (hit !== undefined && hit.version === options.version) return { ...hit, fresh: false };
  const { version } = options;
  const [loaded, config] = await Promise.all([
    loadNamedCatalog(env.DB, workspaceUid, profile),
    configAt(env, workspaceUid, version),
  ]);
  const catalog: WorkspaceCatalog = {
    version,
    fresh: true,
    byName: new Map(loaded.tools.map((entry) => [entry.tool.publicName ?? "", entry])),
    tools: loaded.tools,
    services: loaded.services,
    workspace: loaded.workspace,
    key: loaded.key,
    rateLimits: config.rateLimits,
  };
  cache.set(k, catalog);
  return catalog;
}
