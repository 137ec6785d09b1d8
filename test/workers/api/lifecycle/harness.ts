// Helpers for the hook draft/version route tests: a workspace with an indexed
// tool from a real official-SDK upstream, and keys to act on it.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { createKey, createWorkspace, json } from "../../../helpers/api";
import { call, createService, newUpstream, refresh } from "../services/harness";

export { call };

export interface DraftBody {
  source: string;
  config: Record<string, unknown>;
  version: number;
  etag: string;
  formatted: boolean;
  updatedAt: string | null;
  actor: string | null;
  channel: string | null;
  note: string | null;
}

export interface HookBody {
  draft: DraftBody;
  deployments: { active: unknown; shadow: unknown };
}

export interface SaveBody {
  draft: DraftBody;
  version: number;
  noop: boolean;
}

export interface Fixture {
  ws: string;
  toolUid: string;
  /** `/v1/workspaces/{ws}/tools/{tool}/hook` */
  hook: string;
  /** A key with hooks:read and hooks:write, actor "alice". */
  key: string;
  readKey: string;
  /** Hook paths of the upstream's other tools, by upstream name. */
  hooks: Record<string, string>;
}

/** A fresh workspace, one service on its own upstream, its tools indexed; the `echo` tool is the target. */
export async function fixture(): Promise<Fixture> {
  const ws = (await createWorkspace("hooks")).uid;
  const upstream = newUpstream();
  const service = await createService(ws, { name: "demo", url: upstream.url });
  const refreshed = await refresh(ws, service.uid);
  const tool = refreshed.tools.find((t) => t.upstreamName === "echo");
  expect(tool).toBeDefined();
  const toolUid = tool?.uid ?? "";
  const { key } = await createKey(ws, ["hooks:read", "hooks:write"], "alice");
  const { key: readKey } = await createKey(ws, ["hooks:read"], "reader");
  const hooks = Object.fromEntries(
    refreshed.tools.map((t) => [t.upstreamName, `/v1/workspaces/${ws}/tools/${t.uid}/hook`]),
  );
  return { ws, toolUid, hook: `/v1/workspaces/${ws}/tools/${toolUid}/hook`, key, readKey, hooks };
}

export async function getHook(f: Fixture): Promise<{ body: HookBody; etag: string | null }> {
  const res = await call("GET", f.hook, { key: f.key });
  const etag = res.headers.get("etag");
  return { body: await json<HookBody>(res, 200), etag };
}

export function save(
  f: Fixture,
  body: unknown,
  options: { etag?: string | null; headers?: Record<string, string>; key?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.etag) headers["if-match"] = options.etag;
  return call("PUT", `${f.hook}/draft`, { key: options.key ?? f.key, body, headers });
}

/** Saves and expects a new version; returns the response body and the new ETag. */
export async function saveOk(f: Fixture, etag: string, body: unknown): Promise<SaveBody & { etag: string }> {
  const res = await save(f, body, { etag });
  const newEtag = res.headers.get("etag") ?? "";
  const parsed = await json<SaveBody>(res, 200);
  return { ...parsed, etag: newEtag };
}

/** Rows of `hook_versions` for the workspace, oldest first. */
export async function versionRows(ws: string) {
  const { results } = await env.DB.prepare(
    "select * from hook_versions where workspace_uid = ? order by target, generation, number",
  )
    .bind(ws)
    .all<{ target: string; number: number; source: string; config: string; generation: number }>();
  return results;
}

export const workspaceStub = (ws: string) => env.WORKSPACE.getByName(ws);
