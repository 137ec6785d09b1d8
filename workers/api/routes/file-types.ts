// `GET …/files/{path}/types`: the TypeScript declarations the editor loads
// beside a workspace file (workers/api/contract/file-types.ts): the
// request-hook API for `lib/…`, the plugin module's shape for `plugins/…`.
// They depend only on the path's kind, so a file that does not exist yet gets
// them too; a path that is not a workspace file's is refused like on every
// other file route (422 invalid_file_path).
import { Hono } from "hono";
import { fileKindTypes } from "../contract";
import { requireScope } from "../middleware/auth";
import { operation } from "../openapi/describe";
import { resolveFileTarget } from "../targets";
import type { ApiEnv } from "../types";

export const fileTypesRoutes = new Hono<ApiEnv>().get(
  "/types",
  operation({
    summary:
      "TypeScript declarations for the file's kind: request hooks (lib) or plugins (application/typescript)",
    ok: { "200": { description: "The declarations", media: "application/typescript" } },
    problems: [404],
  }),
  requireScope("hooks:read"),
  async (c) => {
    const { file } = await resolveFileTarget(c);
    return c.body(fileKindTypes(file.kind), 200, { "content-type": "application/typescript; charset=utf-8" });
  },
);
