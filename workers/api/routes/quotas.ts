// `GET /v1/workspaces/{ws}/quotas`: the hourly quotas as they stand for the
// caller: the workspace's draft saves and the caller's own compilations (per
// API key, or per browser user).
import { z } from "zod";
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { Hono } from "hono";
import { requireScope } from "../middleware/auth";
import { compilationUsage } from "../middleware/quota";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const QuotaAnswer = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  resetAt: z.string().describe("When the hour's count starts again (ISO-8601)"),
});
const QuotasAnswer = z.object({ saves: QuotaAnswer, compilations: QuotaAnswer });

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
    ok: {
      "200": { description: "The draft saves and the caller's compilations this hour", schema: QuotasAnswer },
    },
    problems: [404],
  }),
  requireScope("hooks:read"),
  async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(c.var.db, ws);
    const now = Date.now();
    const [usage, compilations] = await Promise.all([
      workspaceObject(c.env, ws).getUsage(ws, now),
      compilationUsage(c, now),
    ]);
    return c.json(
      shaped(QuotasAnswer, { saves: quotaView(usage.draftSaves), compilations: quotaView(compilations) }),
    );
  },
);
