// Workspace files through the API as a user would deploy them: save a draft
// (If-Match), one completed test-console run (a version needs it to deploy),
// then a deployment; and the workspace config replaced under If-Match.
import { expect } from "vitest";
import { call, json } from "./api";

export interface FileWorkspace {
  ws: string;
  /** hooks:read + hooks:write. */
  key: string;
}

export const fileUrl = (w: FileWorkspace, path: string, suffix = "") =>
  `/v1/workspaces/${w.ws}/files/${encodeURIComponent(path)}${suffix}`;

/** Saves `source` as a new version of `path`, runs the console with `testBody`, deploys it; returns the revision id. */
export async function deployFileSource(
  w: FileWorkspace,
  path: string,
  source: string,
  testBody: Record<string, unknown>,
  channel: "active" | "shadow" = "active",
): Promise<string> {
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
  const tested = await json<{ ok: boolean }>(
    await call("POST", fileUrl(w, path, "/test"), { key: w.key, body: testBody }),
    200,
  );
  expect(tested.ok, JSON.stringify(tested)).toBe(true);
  const res = await call("POST", fileUrl(w, path, "/deployments"), {
    key: w.key,
    body: { version: saved.version, channel },
  });
  const text = await res.text();
  expect([200, 201], text).toContain(res.status);
  return (JSON.parse(text) as { revision: { id: string } }).revision.id;
}

/** Replaces the workspace config (admin, through the API with If-Match). */
export async function setConfig(w: { ws: string }, document: Record<string, unknown>): Promise<void> {
  const path = `/v1/workspaces/${w.ws}/config`;
  const current = await json<{ etag: string }>(await call("GET", path), 200);
  await json(await call("PUT", path, { body: document, headers: { "if-match": current.etag } }), 200);
}
