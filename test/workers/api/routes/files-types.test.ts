// `GET /v1/workspaces/{ws}/files/{path}/types`: the editor's declarations for
// a workspace file, by the path's kind, for any valid path (the file need not
// exist), refused for a path that is not a workspace file's like every file route.
import { describe, expect, it } from "vitest";
import { fileKindTypes } from "../../../../workers/api/contract/file-types";
import { createKey, createWorkspace, expectProblem } from "../../../helpers/api";
import { call, fileFixture, fileUrl, saveFile } from "./files-harness";

const types = (ws: string, path: string) => `/v1/workspaces/${ws}/files/${encodeURIComponent(path)}/types`;

describe("GET …/files/{path}/types", () => {
  it("answers the lib declarations for lib/… and the plugin declarations for plugins/…, as TypeScript", async () => {
    const f = await fileFixture();
    for (const [path, kind] of [
      ["lib/request-policy.ts", "lib"],
      ["lib/helpers/text.js", "lib"],
      ["plugins/redact.ts", "plugin"],
    ] as const) {
      const res = await call("GET", fileUrl(f, path, "/types"), { key: f.readKey });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/typescript; charset=utf-8");
      expect(await res.text()).toBe(fileKindTypes(kind));
    }
  });

  it("answers for an existing file as for one not written yet", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/hook.ts", "export function main() { return 1; }");
    const saved = await call("GET", fileUrl(f, "lib/hook.ts", "/types"), { key: f.readKey });
    expect(await saved.text()).toBe(fileKindTypes("lib"));
  });

  it("needs hooks:read of the file's workspace", async () => {
    const f = await fileFixture();
    const url = fileUrl(f, "lib/x.ts", "/types");
    await expectProblem(await call("GET", url, { key: null }), 401, "unauthorized");
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    await expectProblem(await call("GET", url, { key }), 403, "forbidden");
    const { key: callKey } = await createKey(f.ws, ["tools:call"]);
    await expectProblem(await call("GET", url, { key: callKey }), 403, "forbidden");
  });

  it("refuses a path outside lib/ and plugins/ with 422 invalid_file_path, and an unknown workspace with 404", async () => {
    const f = await fileFixture();
    for (const path of ["src/x.ts", "plugins/sub/x.ts", "lib/x.d.ts", "lib/../x.ts"]) {
      const problem = await expectProblem(
        await call("GET", types(f.ws, path), { key: f.readKey }),
        422,
        "invalid_file_path",
      );
      expect(problem.path, path).toBe(path);
    }
    await expectProblem(await call("GET", types("ws_missing", "lib/x.ts")), 404, "workspace_not_found");
  });
});
