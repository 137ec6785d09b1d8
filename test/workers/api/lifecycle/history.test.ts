import { describe, expect, it } from "vitest";
import { expectProblem, json } from "../../../helpers/api";
import { call, fixture, type SaveBody, saveOk, versionRows } from "./harness";

interface VersionItem {
  version: number;
  actor: string;
  channel: string;
  note: string | null;
  createdAt: string;
  bytes: number;
  formatted: boolean;
  restoredFrom: number | null;
  source?: string;
  config?: Record<string, unknown>;
}

/** Saves `export const v = i;` for i = 1..n; returns the last ETag. */
async function saveMany(f: Awaited<ReturnType<typeof fixture>>, n: number, config?: (i: number) => unknown) {
  let etag = '"g0.v0"';
  for (let i = 1; i <= n; i++) {
    etag = (await saveOk(f, etag, { source: `export const v = ${i};`, config: config?.(i) ?? {} })).etag;
  }
  return etag;
}

describe("history", () => {
  it("history lists versions newest first and pages with a cursor", async () => {
    const f = await fixture();
    await saveMany(f, 5);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${cursor}`;
      const page: { items: VersionItem[]; nextCursor: string | null } = await json(
        await call("GET", `${f.hook}/versions${query}`, { key: f.readKey }),
        200,
      );
      for (const item of page.items) {
        expect(item.source).toBeUndefined();
        expect(item).toMatchObject({ actor: "alice", channel: "api", formatted: true });
      }
      seen.push(...page.items.map((i) => i.version));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    expect(pages).toBe(3);
    await expectProblem(
      await call("GET", `${f.hook}/versions?cursor=abc`, { key: f.readKey }),
      400,
      "invalid_request",
    );
  });

  it("one version is read whole: source, config and metadata", async () => {
    const f = await fixture();
    await saveMany(f, 2, (i) => ({ threshold: i }));
    const v2 = await json<VersionItem>(await call("GET", `${f.hook}/versions/2`, { key: f.readKey }), 200);
    expect(v2).toMatchObject({
      version: 2,
      source: "export const v = 2;\n",
      config: { threshold: 2 },
      bytes: "export const v = 2;\n".length + '{"threshold":2}'.length,
    });
    await expectProblem(await call("GET", `${f.hook}/versions/3`, { key: f.readKey }), 404, "not_found");
    await expectProblem(
      await call("GET", `${f.hook}/versions/0`, { key: f.readKey }),
      400,
      "invalid_request",
    );
    await expectProblem(
      await call("GET", `${f.hook}/versions/x`, { key: f.readKey }),
      400,
      "invalid_request",
    );
  });

  it("a diff compares a version with its predecessor, and version 1 with the empty draft", async () => {
    const f = await fixture();
    await saveMany(f, 2, (i) => ({ threshold: i }));
    const d2 = await json<{
      version: number;
      against: number;
      changed: { source: boolean; config: boolean };
      source: string;
      config: string;
    }>(await call("GET", `${f.hook}/versions/2/diff`, { key: f.readKey }), 200);
    expect(d2).toMatchObject({ version: 2, against: 1, changed: { source: true, config: true } });
    expect(d2.source).toContain("--- v1/source.ts");
    expect(d2.source).toContain("+++ v2/source.ts");
    expect(d2.source).toContain("-export const v = 1;");
    expect(d2.source).toContain("+export const v = 2;");
    expect(d2.config).toContain('-  "threshold": 1');
    expect(d2.config).toContain('+  "threshold": 2');
    const d1 = await json<{ against: number; source: string }>(
      await call("GET", `${f.hook}/versions/1/diff`, { key: f.readKey }),
      200,
    );
    expect(d1.against).toBe(0);
    expect(d1.source).toContain("+export const v = 1;");
    await expectProblem(await call("GET", `${f.hook}/versions/9/diff`, { key: f.readKey }), 404, "not_found");
  });

  it("restore appends a copy of the version as a new draft under If-Match and never rewrites history", async () => {
    const f = await fixture();
    const etag = await saveMany(f, 3, (i) => ({ threshold: i }));
    const before = await versionRows(f.ws);
    const restore = (headers: Record<string, string>, body?: unknown) =>
      call("POST", `${f.hook}/versions/1/restore`, { key: f.key, headers, body });
    await expectProblem(await restore({}), 428, "precondition_required");
    const stale = await expectProblem(await restore({ "if-match": '"g0.v1"' }), 412, "precondition_failed");
    expect(stale.etag).toBe(etag);
    const res = await restore({ "if-match": etag, "x-rayrun-channel": "cli" }, { note: "back to one" });
    expect(res.headers.get("etag")).toBe('"g0.v4"');
    const restored = await json<SaveBody>(res, 200);
    expect(restored).toMatchObject({ version: 4, noop: false });
    expect(restored.draft).toMatchObject({
      source: "export const v = 1;\n",
      config: { threshold: 1 },
      channel: "cli",
      note: "back to one",
    });
    const after = await versionRows(f.ws);
    expect(after.slice(0, 3)).toEqual(before);
    expect(after).toHaveLength(4);
    // A body, when there is one, is JSON like every other body: refused ones store nothing.
    const v4etag = { "if-match": '"g0.v4"' };
    await expectProblem(
      await restore({ ...v4etag, "content-type": "text/plain" }, '{"note":"x"}'),
      415,
      "unsupported_media_type",
    );
    await expectProblem(await restore(v4etag, "{not json"), 400, "invalid_json");
    await expectProblem(await restore(v4etag, { note: 7 }), 400, "invalid_request");
    expect(await versionRows(f.ws)).toEqual(after);
    const v4 = await json<VersionItem>(await call("GET", `${f.hook}/versions/4`, { key: f.readKey }), 200);
    expect(v4.restoredFrom).toBe(1);
    // Restoring what the draft already holds is an identical save.
    const again = await json<SaveBody>(
      await call("POST", `${f.hook}/versions/4/restore`, { key: f.key, headers: { "if-match": '"g0.v4"' } }),
      200,
    );
    expect(again).toMatchObject({ noop: true, version: 4 });
    await expectProblem(
      await call("POST", `${f.hook}/versions/7/restore`, { key: f.key, headers: { "if-match": '"g0.v4"' } }),
      404,
      "not_found",
    );
  });

  it("export returns every version with source, config and metadata as one attachment", async () => {
    const f = await fixture();
    await saveMany(f, 23, (i) => ({ threshold: i }));
    const res = await call("GET", `${f.hook}/export`, { key: f.readKey });
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="hook-${f.toolUid}-g0-v23.json"`,
    );
    const doc = await json<{
      target: string;
      draft: { version: number; etag: string };
      versions: VersionItem[];
    }>(res, 200);
    expect(doc.target).toBe(`tool:${f.toolUid}`);
    expect(doc.draft).toEqual({ version: 23, etag: '"g0.v23"' });
    expect(doc.versions.map((v) => v.version)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(doc.versions[22]).toMatchObject({
      source: "export const v = 23;\n",
      config: { threshold: 23 },
      actor: "alice",
      channel: "api",
    });
    const empty = await fixture();
    const none = await json<{ versions: unknown[] }>(
      await call("GET", `${empty.hook}/export`, { key: empty.readKey }),
      200,
    );
    expect(none.versions).toEqual([]);
  });
});
