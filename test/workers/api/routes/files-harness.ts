// Helpers for the workspace file route tests: a workspace with keys, the
// encoded file URL, and the save → test → deploy steps of the lifecycle.
import { expect } from "vitest";
import { call, createKey, createWorkspace, json } from "../../../helpers/api";

export { call };

export interface FileFixture {
  ws: string;
  /** hooks:read + hooks:write, actor "alice". */
  key: string;
  /** hooks:read only. */
  readKey: string;
}

export async function fileFixture(ws?: string): Promise<FileFixture> {
  const uid = ws ?? (await createWorkspace("files")).uid;
  const { key } = await createKey(uid, ["hooks:read", "hooks:write"], "alice");
  const { key: readKey } = await createKey(uid, ["hooks:read"], "reader");
  return { ws: uid, key, readKey };
}

/** `/v1/workspaces/{ws}/files/{path}` with the path as one encoded segment. */
export const fileUrl = (f: FileFixture, path: string, suffix = "") =>
  `/v1/workspaces/${f.ws}/files/${encodeURIComponent(path)}${suffix}`;

export const fileTarget = (path: string) => `file:${path}`;

export const post = (f: FileFixture, path: string, suffix: string, body?: unknown) =>
  call("POST", fileUrl(f, path, suffix), { key: f.key, body });

export interface Revision {
  id: string;
  version: number;
  codeHash: string;
  compiledBytes: number;
  exports: string[];
}

export async function etagOf(f: FileFixture, path: string): Promise<string> {
  const res = await call("GET", fileUrl(f, path), { key: f.key });
  const etag = res.headers.get("etag") ?? "";
  await json(res, 200);
  return etag;
}

/** Saves a new draft version of `path` (reading the current ETag first); returns the new ETag and version. */
export async function saveFile(
  f: FileFixture,
  path: string,
  source: string,
  config: Record<string, unknown> = {},
): Promise<{ etag: string; version: number }> {
  const res = await call("PUT", fileUrl(f, path, "/draft"), {
    key: f.key,
    body: { source, config },
    headers: { "if-match": await etagOf(f, path) },
  });
  const etag = res.headers.get("etag") ?? "";
  const body = await json<{ version: number; noop: boolean }>(res, 200);
  expect(body.noop).toBe(false);
  return { etag, version: body.version };
}

export interface TestRun {
  id: string;
  version: number;
  ok: boolean;
  value?: unknown;
  code?: string;
  message?: string;
  logs: unknown[];
  durationMs: number;
}

export async function testFile(
  f: FileFixture,
  path: string,
  body: Record<string, unknown>,
): Promise<TestRun> {
  return json<TestRun>(await call("POST", fileUrl(f, path, "/test"), { key: f.key, body }), 200);
}

/** Saves, tests (a lib's `main` or a plugin's `chat.params`) and expects a successful run. */
export async function saveAndTest(f: FileFixture, path: string, source: string) {
  const saved = await saveFile(f, path, source);
  const run = await testFile(
    f,
    path,
    path.startsWith("plugins/") ? { hook: "chat.params", input: {} } : { input: {} },
  );
  expect(run.ok, JSON.stringify(run)).toBe(true);
  return saved;
}

export async function deployFile(
  f: FileFixture,
  path: string,
  version: number,
  channel: "active" | "shadow",
) {
  const res = await call("POST", fileUrl(f, path, "/deployments"), {
    key: f.key,
    body: { version, channel },
  });
  expect([200, 201], await res.clone().text()).toContain(res.status);
  return res.json<{ reused: boolean; revision: Revision }>();
}

export const LIB_SOURCE = (tag: string) => `
export function main(input: { text?: string }) {
  return { text: String(input.text ?? "") + ${JSON.stringify(tag)} };
}

export async function enrich(input: { messages: string[] }) {
  await null;
  return { messages: [...input.messages, ${JSON.stringify(tag)}] };
}

export const VERSION = ${JSON.stringify(tag)};
`;

export const PLUGIN_SOURCE = (temperature: number) => `
export default {
  "chat.params": (params: { temperature?: number }) => ({ ...params, temperature: ${temperature} }),
  "tool.execute.after": () => undefined,
};
`;
