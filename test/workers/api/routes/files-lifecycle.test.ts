// Workspace files: paths, drafts with If-Match, versions, diff, restore, export
// and the file list — the same lifecycle routes as a tool's hook.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FILE_PATH_MAX_CHARS, parseFilePath } from "../../../../shared/files/paths";
import { expectProblem, json } from "../../../helpers/api";
import { call, etagOf, fileFixture, fileUrl, LIB_SOURCE, PLUGIN_SOURCE, saveFile } from "./files-harness";

interface FileItem {
  path: string;
  kind: string;
  name: string;
  version: number;
  deployments: { active: unknown; shadow: unknown };
}

describe("paths", () => {
  it("an encoded path (lib%2Frequest-policy.ts) reaches the file lib/request-policy.ts", async () => {
    const f = await fileFixture();
    const url = `/v1/workspaces/${f.ws}/files/lib%2Frequest-policy.ts`;
    const res = await call("GET", url, { key: f.key });
    expect(res.headers.get("etag")).toBe('"g0.v0"');
    expect(await json(res, 200)).toMatchObject({ draft: { version: 0, source: "" } });
    const saved = await saveFile(f, "lib/request-policy.ts", LIB_SOURCE("a"));
    const rows = await env.DB.prepare("select target from hook_versions where workspace_uid = ?")
      .bind(f.ws)
      .all<{ target: string }>();
    expect(rows.results).toEqual([{ target: "file:lib/request-policy.ts" }]);
    // Lower-case escapes and nested folders decode the same way.
    expect((await call("GET", `/v1/workspaces/${f.ws}/files/lib%2fsub%2Fx.ts`, { key: f.key })).status).toBe(
      200,
    );
    const read = await call("GET", url, { key: f.key });
    expect(read.headers.get("etag")).toBe(saved.etag);
    await read.body?.cancel();
  });

  it("accepts lib/<name>.ts|.js with nested folders and plugins/<name>.ts|.js; the plugin name is the file name", () => {
    expect(parseFilePath("lib/a.ts")).toMatchObject({
      ok: true,
      value: { kind: "lib", name: "a", language: "ts" },
    });
    expect(parseFilePath("lib/rag/fast-rag_v2.js")).toMatchObject({
      ok: true,
      value: { kind: "lib", name: "fast-rag_v2" },
    });
    expect(parseFilePath("plugins/redact.ts")).toMatchObject({
      ok: true,
      value: { kind: "plugin", name: "redact" },
    });
    const longest = `lib/${"a".repeat(FILE_PATH_MAX_CHARS - "lib/.ts".length)}.ts`;
    expect(longest).toHaveLength(FILE_PATH_MAX_CHARS);
    expect(parseFilePath(longest).ok).toBe(true);
    expect(parseFilePath(longest.replace("lib/", "lib/a")).ok).toBe(false);
  });

  const BAD = [
    "",
    "x.ts",
    "src/x.ts",
    "lib",
    "lib/",
    "lib/x",
    "lib/x.tsx",
    "lib/x.d.ts",
    "lib//x.ts",
    "/lib/x.ts",
    "lib/../x.ts",
    "lib/./x.ts",
    "lib/.hidden.ts",
    "lib/a b.ts",
    "lib/ä.ts",
    "lib/x.ts/",
    "plugins/sub/x.ts",
    "plugins/.ts",
    "Lib/x.ts",
    `lib/${"a".repeat(FILE_PATH_MAX_CHARS)}.ts`,
  ];

  it("a bad path answers 422 invalid_file_path and stores nothing", async () => {
    const f = await fileFixture();
    for (const path of BAD.filter((p) => p !== "")) {
      const res = await call("PUT", fileUrl(f, path, "/draft"), {
        key: f.key,
        body: { source: LIB_SOURCE("x") },
        headers: { "if-match": '"g0.v0"' },
      });
      const problem = await expectProblem(res, 422, "invalid_file_path");
      expect(problem.path, path).toBe(path);
      expect(problem.detail).toEqual(expect.any(String));
    }
    for (const path of BAD) expect(parseFilePath(path).ok, path).toBe(false);
    const n = await env.DB.prepare("select count(*) as n from hook_versions where workspace_uid = ?")
      .bind(f.ws)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("an unencoded path is not a file route (404), and an unknown workspace is 404", async () => {
    const f = await fileFixture();
    await expectProblem(
      await call("GET", `/v1/workspaces/${f.ws}/files/lib/x.ts`, { key: f.key }),
      404,
      "not_found",
    );
    await expectProblem(
      await call("GET", `/v1/workspaces/ws_missing/files/lib%2Fx.ts`),
      404,
      "workspace_not_found",
    );
  });
});

describe("drafts and versions", () => {
  it("saving needs If-Match: missing is 428, stale is 412 with the current ETag", async () => {
    const f = await fileFixture();
    const path = "lib/policy.ts";
    await expectProblem(
      await call("PUT", fileUrl(f, path, "/draft"), { key: f.key, body: { source: LIB_SOURCE("a") } }),
      428,
      "precondition_required",
    );
    const first = await saveFile(f, path, LIB_SOURCE("a"));
    expect(first).toEqual({ etag: '"g0.v1"', version: 1 });
    const stale = await call("PUT", fileUrl(f, path, "/draft"), {
      key: f.key,
      body: { source: LIB_SOURCE("b") },
      headers: { "if-match": '"g0.v0"' },
    });
    const problem = await expectProblem(stale, 412, "precondition_failed");
    expect(problem.etag).toBe('"g0.v1"');
    const draft = await json<{ draft: { source: string; version: number; actor: string } }>(
      await call("GET", fileUrl(f, path), { key: f.readKey }),
      200,
    );
    // Formatted on save like adapters.
    expect(draft.draft).toMatchObject({ version: 1, actor: "alice" });
    expect(draft.draft.source).toContain('return { text: String(input.text ?? "") + "a" };');
  });

  it("versions, one version, diff and restore work as for tool hooks", async () => {
    const f = await fileFixture();
    const path = "plugins/temperature.ts";
    await saveFile(f, path, PLUGIN_SOURCE(0.1));
    await saveFile(f, path, PLUGIN_SOURCE(0.2));
    const list = await json<{ items: { version: number }[]; nextCursor: string | null }>(
      await call("GET", fileUrl(f, path, "/versions?limit=1"), { key: f.readKey }),
      200,
    );
    expect(list).toEqual({ items: [expect.objectContaining({ version: 2 })], nextCursor: "2" });
    const rest = await json<{ items: { version: number }[]; nextCursor: string | null }>(
      await call("GET", fileUrl(f, path, `/versions?limit=1&cursor=${list.nextCursor}`), { key: f.readKey }),
      200,
    );
    expect(rest).toEqual({ items: [expect.objectContaining({ version: 1 })], nextCursor: null });
    const v1 = await json<{ source: string }>(
      await call("GET", fileUrl(f, path, "/versions/1"), { key: f.readKey }),
      200,
    );
    expect(v1.source).toContain("temperature: 0.1");
    const diff = await json<{ changed: { source: boolean }; source: string }>(
      await call("GET", fileUrl(f, path, "/versions/2/diff"), { key: f.readKey }),
      200,
    );
    expect(diff.changed.source).toBe(true);
    expect(diff.source).toContain("-    temperature: 0.1,\n+    temperature: 0.2,");
    const restored = await json<{ version: number; draft: { source: string } }>(
      await call("POST", fileUrl(f, path, "/versions/1/restore"), {
        key: f.key,
        headers: { "if-match": await etagOf(f, path) },
      }),
      200,
    );
    expect(restored.version).toBe(3);
    expect(restored.draft.source).toBe(v1.source);
    await expectProblem(
      await call("GET", fileUrl(f, path, "/versions/9"), { key: f.readKey }),
      404,
      "not_found",
    );
  });

  it("export streams every version with the file's target", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/a.js", "export function main() { return 1; }");
    await saveFile(f, "lib/a.js", "export function main() { return 2; }");
    const res = await call("GET", fileUrl(f, "lib/a.js", "/export"), { key: f.readKey });
    expect(res.headers.get("content-disposition")).toContain("lib_a.js");
    const doc = await json<{ target: string; versions: { version: number }[] }>(res, 200);
    expect(doc.target).toBe("file:lib/a.js");
    expect(doc.versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it("a read key cannot save; a key of another workspace is refused", async () => {
    const f = await fileFixture();
    const other = await fileFixture();
    for (const key of [f.readKey, other.key]) {
      const res = await call("PUT", fileUrl(f, "lib/a.ts", "/draft"), {
        key,
        body: { source: LIB_SOURCE("a") },
        headers: { "if-match": '"g0.v0"' },
      });
      await expectProblem(res, 403, "forbidden");
    }
  });

  it("plugins/x.ts and plugins/x.js cannot both exist: the second one is refused with 409", async () => {
    const f = await fileFixture();
    await saveFile(f, "plugins/redact.ts", PLUGIN_SOURCE(0.1));
    const res = await call("PUT", fileUrl(f, "plugins/redact.js", "/draft"), {
      key: f.key,
      body: { source: "export default { tool: () => [] };" },
      headers: { "if-match": '"g0.v0"' },
    });
    const problem = await expectProblem(res, 409, "conflict");
    expect(problem).toMatchObject({ plugin: "redact", existing: "plugins/redact.ts" });
    // lib files are referenced by full path, so both spellings may exist.
    await saveFile(f, "lib/x.ts", LIB_SOURCE("a"));
    await saveFile(f, "lib/x.js", "export function main() { return 1; }");
  });
});

describe("GET /v1/workspaces/{ws}/files", () => {
  it("lists files with their draft version and deployments, pages by path, and filters by kind", async () => {
    const f = await fileFixture();
    for (const path of ["plugins/b.ts", "lib/z.ts", "lib/a/deep.ts"]) {
      await saveFile(f, path, path.startsWith("plugins/") ? PLUGIN_SOURCE(0.1) : LIB_SOURCE("a"));
    }
    await saveFile(f, "lib/z.ts", LIB_SOURCE("b"));
    const seen: FileItem[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page: { items: FileItem[]; nextCursor: string | null } = await json(
        await call("GET", `/v1/workspaces/${f.ws}/files${query}`, { key: f.readKey }),
        200,
      );
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([
      expect.objectContaining({ path: "lib/a/deep.ts", kind: "lib", name: "deep", version: 1 }),
      expect.objectContaining({ path: "lib/z.ts", kind: "lib", name: "z", version: 2 }),
      {
        path: "plugins/b.ts",
        kind: "plugin",
        name: "b",
        version: 1,
        etag: '"g0.v1"',
        deployments: { active: null, shadow: null },
      },
    ]);
    const plugins = await json<{ items: FileItem[] }>(
      await call("GET", `/v1/workspaces/${f.ws}/files?kind=plugin`, { key: f.readKey }),
      200,
    );
    expect(plugins.items.map((i) => i.path)).toEqual(["plugins/b.ts"]);
    await expectProblem(
      await call("GET", `/v1/workspaces/${f.ws}/files?kind=tool`, { key: f.readKey }),
      400,
      "invalid_request",
    );
  });
});
