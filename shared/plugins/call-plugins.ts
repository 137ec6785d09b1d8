// The workspace's active plugin list on the tool-call path, kept per isolate
// with the config it was read under: read beside a call's first steps and
// tagged with the epoch of the isolate's lease on the workspace's view, which
// every pointer move (a plugin deploy, rollback or reset) and every catalog or
// config write moves, so the next call under a newer view reads it again.
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
 * A workspace's active plugin list, kept for KNOBS.pluginListCacheMs and only
 * at the epoch it was built at; like the catalog copy's, the age bound only
 * matters if a writer failed between its write and its catalog bump.
 */
const pluginCache = boundedCache<string, { epoch: number; set: PluginSet }>({
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
 * The workspace's active plugins, in order, under the isolate's lease: the
 * isolate's list when it was built at the lease's epoch and is young, else
 * built from the lease's pointers and the config at its catalog version.
 * Never throws: a failed read logs and runs the call without plugins (plugins
 * fail open).
 */
export async function callPlugins(
  env: Pick<Env, "DB" | "CODE"> & WorkspaceBinding,
  workspaceUid: string,
): Promise<PluginSet> {
  try {
    const { view } = await leasedView(env, workspaceUid);
    const hit = pluginCache.get(workspaceUid);
    if (hit !== undefined && hit.epoch === view.epoch) return hit.set;
    const config = await configAt(env, workspaceUid, view.catalog);
    const set: PluginSet = { plugins: await activePlugins(env, workspaceUid, config, view.pointers), config };
    pluginCache.set(workspaceUid, { epoch: view.epoch, set });
    return set;
  } catch (error) {
    console.error("plugins: could not read the active plugins; the call runs without them", {
      workspaceUid,
      error: String(error),
    });
    return { plugins: [] };
  }
}
