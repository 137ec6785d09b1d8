// `GET /v1/workspaces/{ws}/quotas`: the hourly quotas as they stand for the
// caller: the workspace's draft saves and the caller's own compilations (per
// API key, or per browser user).
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { Hono } from "hono";
import { database } from "../../../shared/db/client";
import { requireScope } from "../middleware/auth";
import { compilationUsage } from "../middleware/quota";
import { operation } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const quotaView = (q: { limit: number; used: number; resetAt: string }) => ({
  limit: q.limit,
  used: q.used,
  remaining: Math.max(0, q.limit - q.used),
  resetAt: q.resetAt,
});

export const quotaRoutes = new Hono<ApiEnv>().get(
  "/workspaces/:ws/quotas",
  operation({
    summary: "Draft saves of the workspace and the caller's compilations this hour",
    ok: { "200": "`{ saves, compilations }`, each `{ limit, used, remaining, resetAt }`" },
    problems: [404],
  }),
  requireScope("hooks:read"),
  async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(database(c.env.DB), ws);
    const now = Date.now();
    const [usage, compilations] = await Promise.all([
      workspaceObject(c.env, ws).getUsage(ws, now),
      compilationUsage(c, now),
    ]);
    return c.json({ saves: quotaView(usage.draftSaves), compilations: quotaView(compilations) });
  },
);
