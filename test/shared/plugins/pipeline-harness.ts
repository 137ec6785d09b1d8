// Helpers for the plugin pipeline tests: a workspace whose plugins are deployed
// through the files API (draft → test run → deployment), its config, and the
// pipeline called with the test Worker's bindings.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { env } from "cloudflare:workers";
import { readWorkspaceConfig } from "../../../shared/config";
import type { Json } from "../../../shared/json";
import { activePlugins, type DeployedPlugin } from "../../../shared/plugins/discovery";
import { beforePayload } from "../../../workers/gateway/plugins/execute-payloads";
import { runPluginHook, type PipelineHook, type PluginHookInput } from "../../../shared/plugins/run";
import { createKey, createWorkspace } from "../../helpers/api";
import { deployFileSource, setConfig } from "../../helpers/files";

export interface PluginWorkspace {
  ws: string;
  /** hooks:read + hooks:write. */
  key: string;
}

export async function pluginWorkspace(): Promise<PluginWorkspace> {
  const { uid } = await createWorkspace("plugins");
  const { key } = await createKey(uid, ["hooks:read", "hooks:write"], "plugin-author");
  return { ws: uid, key };
}

/**
 * Saves `source` as `plugins/<name>.ts`, runs its test console with `probe`
 * (a version needs one completed run to deploy; the plugins under test answer
 * the probe harmlessly), and deploys it to `channel`. Returns the revision id.
 */
export async function deployPlugin(
  w: PluginWorkspace,
  name: string,
  source: string,
  options: { probe?: { hook: PipelineHook; input: Json }; channel?: "active" | "shadow" } = {},
): Promise<string> {
  return deployFileSource(
    w,
    `plugins/${name}.ts`,
    source,
    options.probe ?? { hook: "chat.params", input: {} },
    options.channel ?? "active",
  );
}

export { setConfig };

/** The workspace's active plugins in pipeline order, as the request paths list them. */
export async function plugins(w: PluginWorkspace): Promise<DeployedPlugin[]> {
  const { view } = await workspaceObject(env, w.ws).grantLease();
  return activePlugins(env, w.ws, await readWorkspaceConfig(env.DB, w.ws), view.pointers);
}

/** Runs `hook` over the workspace's active plugins. */
export async function runHook<T extends Json>(
  w: PluginWorkspace,
  hook: PipelineHook,
  value: T,
  extra: Partial<PluginHookInput<T>> = {},
) {
  return runPluginHook<T>(env, {
    workspaceUid: w.ws,
    requestId: crypto.randomUUID(),
    hook,
    value,
    plugins: await plugins(w),
    ...extra,
  });
}

/**
 * A `tool.execute.before` plugin that appends `name` to `args.trace` (the
 * payload's other fields spread back in), so a run shows order and threading.
 */
export const TRACER = (name: string) => `
export default {
  "tool.execute.before": (input: { toolID: string; args: { trace?: string[] } }) => ({
    ...input,
    args: { ...input.args, trace: [...(input.args?.trace ?? []), ${JSON.stringify(name)}] },
  }),
};
`;

/** The probe for tool.execute.before plugins: a payload every plugin here handles without failing. */
export const BEFORE_PROBE = {
  hook: "tool.execute.before",
  input: { toolID: "probe", args: {} },
} as const satisfies { hook: PipelineHook; input: Json };

/** The call the payloads below are for: fixed, so two payloads of one test compare equal. */
const CALL = { requestId: "req_pipeline", workspaceUid: "ws_pipeline", calledAt: "2025-01-01T00:00:00.000Z" };

/** A `tool.execute.before` payload as the tool-call path builds it. */
export const payload = (args: Record<string, Json> = {}) => beforePayload("fs_read", args, CALL);
