import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey, createWorkspace, expectProblem } from "../../helpers/api";
import { call, fixture, saveOk, versionRows } from "../../workers/api/lifecycle/harness";

/** Every hook route this module serves, as [method, path suffix, needs If-Match]. */
const ROUTES: [string, string, boolean][] = [
  ["GET", "", false],
  ["PUT", "/draft", true],
  ["GET", "/versions", false],
  ["GET", "/versions/1", false],
  ["GET", "/versions/1/diff", false],
  ["POST", "/versions/1/restore", true],
  ["GET", "/export", false],
];

const bodyFor = (method: string, suffix: string) =>
  method === "PUT" ? { source: "export const hacked = true;" } : suffix.endsWith("restore") ? {} : undefined;

describe("hook route access", () => {
  it("a key of another workspace is refused with 403 on every hook route", async () => {
    const f = await fixture();
    await saveOk(f, '"g0.v0"', { source: "export const a = 1;" });
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    for (const [method, suffix] of ROUTES) {
      const res = await call(method, `${f.hook}${suffix}`, {
        key,
        body: bodyFor(method, suffix),
        headers: { "if-match": '"g0.v1"' },
      });
      await expectProblem(res, 403, "forbidden");
    }
    expect(await versionRows(f.ws)).toHaveLength(1);
  });

  it("a read-only key reads every hook route but cannot save or restore", async () => {
    const f = await fixture();
    await saveOk(f, '"g0.v0"', { source: "export const a = 1;" });
    const statuses = [];
    for (const [method, suffix] of ROUTES) {
      const res = await call(method, `${f.hook}${suffix}`, {
        key: f.readKey,
        body: bodyFor(method, suffix),
        headers: { "if-match": '"g0.v1"' },
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual(ROUTES.map(([, , write]) => (write ? 403 : 200)));
    const none = await call("GET", f.hook, { key: null });
    await expectProblem(none, 401, "unauthorized");
  });

  it("an unknown tool is 404 on every hook route", async () => {
    const f = await fixture();
    const base = `/v1/workspaces/${f.ws}/tools/tool_missing/hook`;
    for (const [method, suffix] of ROUTES) {
      const res = await call(method, `${base}${suffix}`, {
        key: f.key,
        body: bodyFor(method, suffix),
        headers: { "if-match": '"g0.v0"' },
      });
      await expectProblem(res, 404, "not_found");
    }
    expect(await versionRows(f.ws)).toEqual([]);
  });

  it("a tool of a deleted service keeps a readable history but takes no saves or restores", async () => {
    const f = await fixture();
    const { etag } = await saveOk(f, '"g0.v0"', { source: "export const a = 1;" });
    await env.DB.prepare(
      "update services set legacy = 1, deleted_at = ? where uid = (select service_uid from tools where uid = ?)",
    )
      .bind(new Date().toISOString(), f.toolUid)
      .run();
    const answers = [];
    for (const [method, suffix] of ROUTES) {
      const res = await call(method, `${f.hook}${suffix}`, {
        key: f.key,
        body: bodyFor(method, suffix),
        headers: { "if-match": etag },
      });
      if (res.status === 200) {
        answers.push(200);
        await res.body?.cancel();
      } else answers.push([res.status, (await res.json<{ code: string }>()).code]);
    }
    expect(answers).toEqual(ROUTES.map(([, , write]) => (write ? [409, "conflict"] : 200)));
    expect(await versionRows(f.ws)).toHaveLength(1);
  });
});
