// What an LLM call needs from the WorkspaceObject, asked in one round trip
// once the workspace config has named the request hook's file: the proxy and
// `POST …/llm/prepare` both run the request hook and the plugins' chat.params.
import { workspaceObject, type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import type { WorkspaceConfig } from "../config/schema";
import { parseHookSource } from "../config/pre-llm-hook";
import type { Pointers } from "../lifecycle/pointers";
import { fileTarget } from "../lifecycle/target";
import { callPlugins } from "../plugins/call-plugins";
import type { DeployedPlugin } from "../plugins/discovery";
import { applicableHook } from "./request-hook";

export interface LlmCallState {
  /** Whether the calling key is revoked (never, for a caller passed without a key). */
  revoked: boolean;
  /** The request hook file's pointers; null when no hook runs on this call. */
  hookPointers: Pointers | null;
  /**
   * The active plugins in order: the isolate's copy at the object's catalog
   * version, or read. Asked for only once the call is admitted, so a refused
   * call starts no read.
   */
  plugins: () => Promise<DeployedPlugin[]>;
}

/**
 * One round trip for the call's revocation, its request hook's pointers and
 * the catalog version the plugin list is kept under. `bypass` (a compaction
 * call) runs no hook. The plugin list is read only on a miss, and never fails
 * (plugins fail open).
 */
export async function llmCallState(
  env: Pick<Env, "DB" | "CODE"> & WorkspaceBinding,
  workspaceUid: string,
  config: WorkspaceConfig,
  call: { loop: string; keyId: string | null; bypass: boolean },
): Promise<LlmCallState> {
  const hook = call.bypass ? null : applicableHook(config, call.loop);
  const target = hook === null ? null : fileTarget(parseHookSource(hook.source).path);
  const view = await workspaceObject(env, workspaceUid).llmCallView(call.keyId, target);
  return {
    revoked: view.revoked,
    hookPointers: view.hook,
    plugins: async () => (await callPlugins(env, workspaceUid, view.catalog)).plugins,
  };
}
