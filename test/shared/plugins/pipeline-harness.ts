// Helpers for the plugin pipeline tests: a workspace whose plugins are deployed
// through the files API (draft → test run → deployment), its config, and the
// pipeline called with the test Worker's bindings.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { readWorkspaceConfig } from "../../../shared/config";
import type { Json } from "../../../shared/json";
import { activePlugins, type DeployedPlugin } from "../../../shared/plugins/discovery";
import { runPluginHook, type PipelineHook, type PluginHookInput } from "../../../shared/plugins/run";
import { call, createKey, createWorkspace, json } from "../../helpers/api";

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

const fileUrl = (w: PluginWorkspace, path: string, suffix = "") =>
  `/v1/workspaces/${w.ws}/files/${encodeURIComponent(path)}${suffix}`;

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
  const path = `plugins/${name}.ts`;
  const current = await call("GET", fileUrl(w, path), { key: w.key });
  const etag = current.headers.get("etag") ?? "";
  await current.body?.cancel();
  const saved = await json<{ version: number }>(
    await call("PUT", fileUrl(w, path, "/draft"), {
      key: w.key,
      body: { source, config: {} },
      headers: { "if-match": etag },
    }),
    200,
  );
  const probe = options.probe ?? { hook: "chat.params", input: {} };
  const tested = await json<{ ok: boolean }>(
    await call("POST", fileUrl(w, path, "/test"), { key: w.key, body: probe }),
    200,
  );
  expect(tested.ok, JSON.stringify(tested)).toBe(true);
  const res = await call("POST", fileUrl(w, path, "/deployments"), {
    key: w.key,
    body: { version: saved.version, channel: options.channel ?? "active" },
  });
  const text = await res.text();
  expect([200, 201], text).toContain(res.status);
  return (JSON.parse(text) as { revision: { id: string } }).revision.id;
}

/** Replaces the workspace config (admin, through the API with If-Match). */
export async function setConfig(w: PluginWorkspace, document: Record<string, unknown>): Promise<void> {
  const path = `/v1/workspaces/${w.ws}/config`;
  const current = await json<{ etag: string }>(await call("GET", path), 200);
  await json(await call("PUT", path, { body: document, headers: { "if-match": current.etag } }), 200);
}

/** The workspace's active plugins in pipeline order, as the request paths list them. */
export async function plugins(w: PluginWorkspace): Promise<DeployedPlugin[]> {
  return activePlugins(env, w.ws, await readWorkspaceConfig(env.DB, w.ws));
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

export const payload = (args: Record<string, Json> = {}) => ({
  toolID: "fs_read",
  args,
  ctx: { sessionID: "s1" },
});
