// The workspace's active plugin list on the tool-call path, kept per isolate
// with the config it was read under: read beside a call's first steps and
// tagged with the catalog version of the call, so a plugin deploy, rollback or
// reset, or a config write (each bumps that version) is seen by the next call.
// The config rides along so the plugin hooks' capability gates need no D1
// read of their own on every call.
import { type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { boundedCache } from "../cache";
import { KNOBS } from "../knobs";
import { configAt } from "../lease/config";
import { leasedView } from "../lease/view";
import type { WorkspaceConfig } from "../config/schema";
import { activePlugins, type DeployedPlugin } from "./discovery";

/** The active plugins in order, and the config they were read under (absent when the read failed). */
export interface PluginSet {
  plugins: DeployedPlugin[];
  config?: WorkspaceConfig;
}

/**
 * A workspace's active plugin list, kept for KNOBS.pluginListCacheMs. Plugin
 * deploys, rollbacks and resets (deployments.ts) and config writes (the
 * catalog-version middleware) bump the catalog version, so the list is dropped
 * the moment the call path sees a newer version; like the catalog copy's, the
 * age bound only matters if a writer failed between its write and the bump.
 */
const pluginCache = boundedCache<string, { version: number; set: PluginSet }>({
  entries: KNOBS.pluginListCacheEntries,
  ttlMs: KNOBS.pluginListCacheMs,
});

/** For tests: forget every cached plugin list. */
export function clearPluginCache(): void {
  pluginCache.clear();
}

/** Whether a target is a plugin file (its deploys change what runs on the tool path). */
export const isPluginTarget = (target: string): boolean => target.startsWith("file:plugins/");

/**
 * The workspace's active plugins, in order, for a call at catalog `version`:
 * the isolate's list when it is at that version and young, else built from
 * the lease's pointers and the config at that version. Never throws: a failed read logs
 * and runs the call without plugins (plugins fail open).
 */
export async function callPlugins(
  env: Pick<Env, "DB" | "CODE"> & WorkspaceBinding,
  workspaceUid: string,
  version: number,
): Promise<PluginSet> {
  const hit = pluginCache.get(workspaceUid);
  if (hit !== undefined && hit.version === version) return hit.set;
  try {
    const [config, { view }] = await Promise.all([
      configAt(env, workspaceUid, version),
      leasedView(env, workspaceUid),
    ]);
    const set: PluginSet = { plugins: await activePlugins(env, workspaceUid, config, view.pointers), config };
    pluginCache.set(workspaceUid, { version, set });
    return set;
  } catch (error) {
    console.error("plugins: could not read the active plugins; the call runs without them", {
      workspaceUid,
      error: String(error),
    });
    return { plugins: [] };
  }
}
