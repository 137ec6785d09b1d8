// Workspace files (`lib/…`, `plugins/…`) with exactly the tool adapters'
// lifecycle: `GET /v1/workspaces/{ws}/files` lists them, and
// `…/files/{path}` (the path URL-encoded as one segment, `lib%2Fx.ts`) mounts
// the same draft/version, deployment and log routes as `…/tools/{tool}/hook`,
// plus the file test console (file-test.ts).
import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../shared/db/client";
import { parseFilePath, type FileKind } from "../../../shared/files/paths";
import { FILE_TARGET_PREFIX } from "../../../shared/lifecycle/target";
import { requireScope } from "../middleware/auth";
import { validQuery } from "../middleware/validate";
import { PageQuery } from "../middleware/page";
import type { ApiEnv } from "../types";
import { deploymentRoutes } from "./deployments";
import { resolveFileTarget } from "./file-target";
import { fileTestRoutes } from "./file-test";
import { lifecycleRoutes, pointerView } from "./hooks";
import { targetLogRoutes } from "./logs";
import { requireWorkspace } from "./services";

const FILE_KINDS = ["lib", "plugin"] as const satisfies readonly FileKind[];
const KIND_FOLDER: Record<FileKind, string> = { lib: "lib/", plugin: "plugins/" };

export const FileListQuery = PageQuery.extend({
  kind: z.enum(FILE_KINDS).optional().describe("Only lib files or only plugins"),
}).strict();

const fileListQuery = validQuery(FileListQuery, "Invalid list parameters.");

const FILE = "/workspaces/:ws/files/:path";

export const fileRoutes = new Hono<ApiEnv>()
  .get("/workspaces/:ws/files", requireScope("hooks:read"), fileListQuery, async (c) => {
    const workspaceUid = c.req.param("ws");
    await requireWorkspace(database(c.env.DB), workspaceUid);
    const { limit, cursor, kind } = c.req.valid("query");
    const prefix = `${FILE_TARGET_PREFIX}${kind === undefined ? "" : KIND_FOLDER[kind]}`;
    const rows = await c.env.WORKSPACE.getByName(workspaceUid).listTargets(workspaceUid, prefix, {
      // The cursor is the last path of the previous page.
      after: cursor === undefined ? "" : `${FILE_TARGET_PREFIX}${cursor}`,
      limit: limit + 1,
    });
    const items = rows.slice(0, limit).flatMap(({ target, head, pointers }) => {
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
          deployments: { active: pointerView(pointers.active), shadow: pointerView(pointers.shadow) },
        },
      ];
    });
    const last = rows.slice(0, limit).at(-1);
    return c.json({
      items,
      nextCursor: rows.length > limit && last ? last.target.slice(FILE_TARGET_PREFIX.length) : null,
    });
  })
  .route(FILE, lifecycleRoutes(resolveFileTarget))
  .route(FILE, deploymentRoutes(resolveFileTarget))
  .route(FILE, fileTestRoutes)
  .route(FILE, targetLogRoutes(resolveFileTarget));
