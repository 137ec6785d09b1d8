// What an LLM call needs of the workspace, decided on the isolate's lease on
// the workspace's view (no trip home while it holds): revocation, the request
// hook's pointers, the config (a copy per catalog version) and the plugin list
// (kept per catalog version). The proxy and `POST …/llm/prepare` both run the
// request hook and the plugins' chat.params.
import type { WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import type { WorkspaceConfig } from "../config/schema";
import { parseHookSource } from "../config/pre-llm-hook";
import { configAt } from "../lease/config";
import { leasedView } from "../lease/view";
import { NO_POINTERS, type Pointers } from "../lifecycle/pointers";
import { fileTarget } from "../lifecycle/target";
import { callPlugins } from "../plugins/call-plugins";
import type { DeployedPlugin } from "../plugins/discovery";
import { applicableHook } from "./request-hook";

export interface LlmCallState {
  config: WorkspaceConfig;
  /** The lease's catalog version: the config's, and the provider key's copy's. */
  catalogVersion: number;
  /** Whether the calling key is revoked (never, for a caller passed without a key). */
  revoked: boolean;
  /** The request hook file's pointers; null when no hook runs on this call. */
  hookPointers: Pointers | null;
  /**
   * The active plugins in order: the isolate's copy at the lease's catalog
   * version, or read. Asked for only once the call is admitted, so a refused
   * call starts no read.
   */
  plugins: () => Promise<DeployedPlugin[]>;
}

/**
 * The call's state under the lease. `bypass` (a compaction call) runs no
 * hook. Throws LeaseUnavailable when no lease can be had (callers answer
 * `workspace_unavailable`).
 */
export async function llmCallState(
  env: Pick<Env, "DB" | "CODE"> & WorkspaceBinding,
  workspaceUid: string,
  call: {
    loop: string;
    keyId: string | null;
    bypass: boolean;
    waitUntil?: (promise: Promise<unknown>) => void;
  },
): Promise<LlmCallState> {
  const { view } = await leasedView(env, workspaceUid, call.waitUntil);
  const config = await configAt(env, workspaceUid, view.catalog);
  const hook = call.bypass ? null : applicableHook(config, call.loop);
  const target = hook === null ? null : fileTarget(parseHookSource(hook.source).path);
  return {
    config,
    catalogVersion: view.catalog,
    revoked: call.keyId !== null && view.revoked.includes(call.keyId),
    hookPointers: target === null ? null : (view.pointers[target] ?? NO_POINTERS),
    plugins: async () => (await callPlugins(env, workspaceUid)).plugins,
  };
}
