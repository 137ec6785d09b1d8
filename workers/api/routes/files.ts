// Workspace files (`lib/…`, `plugins/…`) with exactly the tool adapters'
// lifecycle: `GET /v1/workspaces/{ws}/files` lists them; app.ts mounts the
// draft/version, deployment and log routes, and the file test console
// (file-test.ts), under `…/files/{path}` (the path URL-encoded as one segment,
// `lib%2Fx.ts`).
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { Hono } from "hono";
import { describeRoute } from "hono-openapi";
import { z } from "zod";
import { parseFilePath, type FileKind } from "../../../shared/files/paths";
import { FILE_TARGET_PREFIX } from "../../../shared/lifecycle/target";
import { requireScope } from "../middleware/auth";
import { pageOf, PageQuery, paginate } from "../middleware/page";
import { validQuery } from "../middleware/validate";
import { DeploymentsAnswer } from "../lifecycle/answers";
import { operation, problems, shaped } from "../openapi/describe";
import { deploymentsView, requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const FILE_KINDS = ["lib", "plugin"] as const satisfies readonly FileKind[];
const KIND_FOLDER: Record<FileKind, string> = { lib: "lib/", plugin: "plugins/" };

export const FileListQuery = PageQuery.extend({
  kind: z.enum(FILE_KINDS).optional().describe("Only lib files or only plugins"),
}).strict();

const fileListQuery = validQuery(FileListQuery, "Invalid list parameters.");

/**
 * What every `…/files/{path}` operation shares: how `{path}` is sent, and the
 * refusal of one that is not a workspace file's path. app.ts uses it ahead of
 * the file routes, which hono-openapi then describes with it.
 */
export const filePathOperations = describeRoute({
  parameters: [
    {
      name: "path",
      in: "path",
      required: true,
      description: "Workspace file path as one URL-encoded segment: lib%2Frequest-policy.ts",
      schema: { type: "string" },
    },
  ],
  responses: problems(422),
});

const FileAnswer = z.object({
  path: z.string(),
  kind: z.enum(["lib", "plugin"]),
  name: z.string(),
  version: z.number().int().describe("The draft's version; 0 before the first save"),
  etag: z.string(),
  deployments: DeploymentsAnswer,
});
const FILE_PAGE = pageOf(FileAnswer);

export const fileRoutes = new Hono<ApiEnv>().get(
  "/workspaces/:ws/files",
  operation({
    summary: "Workspace files (lib/…, plugins/…) with draft version and deployments (`?kind=lib|plugin`)",
    ok: { "200": FILE_PAGE },
    problems: [404],
  }),
  requireScope("hooks:read"),
  fileListQuery,
  async (c) => {
    const workspaceUid = c.req.param("ws");
    await requireWorkspace(c.var.db, workspaceUid);
    const query = c.req.valid("query");
    const prefix = `${FILE_TARGET_PREFIX}${query.kind === undefined ? "" : KIND_FOLDER[query.kind]}`;
    const page = await paginate(
      query,
      (after, limit) =>
        workspaceObject(c.env, workspaceUid).listTargets(workspaceUid, prefix, {
          after: after === undefined ? "" : `${FILE_TARGET_PREFIX}${after}`,
          limit,
        }),
      (row) => row.target.slice(FILE_TARGET_PREFIX.length),
      (path) => parseFilePath(path).ok,
    );
    const items = page.items.flatMap(({ target, head, pointers }) => {
      const parsed = parseFilePath(target.slice(FILE_TARGET_PREFIX.length));
      if (!parsed.ok) return [];
      const { path, kind: fileKind, name } = parsed.value;
      return [
        {
          path,
          kind: fileKind,
          name,
          version: head.version,
          etag: head.etag,
          deployments: deploymentsView(pointers),
        },
      ];
    });
    return c.json(shaped(FILE_PAGE.schema, { items, nextCursor: page.nextCursor }));
  },
);
