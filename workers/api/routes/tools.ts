import { and, desc, eq, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { database, type Database } from "../../../shared/db/client";
import { services, tools } from "../../../shared/db/schema";
import { ProblemException } from "../../../shared/http/problem";
import { findTool, liveService, now } from "../../../shared/services/store";
import { toolView } from "../../../shared/services/views";
import { requireScope } from "../middleware/auth";
import { limitBody, optionalJsonBody } from "../middleware/json-body";
import { validQuery } from "../middleware/validate";
import { PageQuery } from "../middleware/page";
import type { ApiEnv } from "../types";
import { isDeleted, refuseDeleted, requireWorkspace } from "./services";

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const AcceptReviewRequest = z
  .object({
    definitionHash: z
      .string()
      .regex(SHA256_HEX, "A lower-case hex SHA-256")
      .optional()
      .describe(
        "The pending definition hash the reviewer saw; refused with 409 when the pending one differs",
      ),
  })
  .strict();

const ToolListQuery = PageQuery.extend({
  service: z.string().min(1).max(200).optional().describe("Only the tools of this service uid"),
});

async function requireTool(db: Database, workspaceUid: string, toolUid: string) {
  await requireWorkspace(db, workspaceUid);
  const found = await findTool(db, workspaceUid, toolUid);
  if (!found)
    throw new ProblemException({ code: "not_found", detail: `No tool ${toolUid} in this workspace.` });
  return found;
}

const view = (found: { tool: typeof tools.$inferSelect; service: typeof services.$inferSelect }) => ({
  ...toolView(found.tool, found.service),
  serviceDeleted: isDeleted(found.service),
});

export const toolRoutes = new Hono<ApiEnv>()
  .get("/workspaces/:ws/tools", requireScope("hooks:read"), validQuery(ToolListQuery), async (c) => {
    const ws = c.req.param("ws");
    const db = database(c.env.DB);
    await requireWorkspace(db, ws);
    const { limit, cursor, service } = c.req.valid("query");
    // Tools of deleted services are gone from the list (their history view still shows them);
    // tools removed upstream stay listed, with `removedAt`, for their hook history.
    const rows = await db
      .select({ tool: tools, service: services })
      .from(tools)
      .innerJoin(services, eq(services.uid, tools.serviceUid))
      .where(
        and(
          eq(tools.workspaceUid, ws),
          liveService(),
          service === undefined ? undefined : eq(tools.serviceUid, service),
          cursor ? lt(tools.uid, cursor) : undefined,
        ),
      )
      .orderBy(desc(tools.uid))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit).map(view);
    return c.json({ items, nextCursor: rows.length > limit ? (items.at(-1)?.uid ?? null) : null });
  })
  .get("/workspaces/:ws/tools/:tool", requireScope("hooks:read"), async (c) => {
    return c.json(view(await requireTool(database(c.env.DB), c.req.param("ws"), c.req.param("tool"))));
  })
  .post("/workspaces/:ws/tools/:tool/review/accept", requireScope("hooks:write"), limitBody(), async (c) => {
    const ws = c.req.param("ws");
    const db = database(c.env.DB);
    const { tool, service } = await requireTool(db, ws, c.req.param("tool"));
    const body = await optionalJsonBody(c.req.raw, AcceptReviewRequest);
    refuseDeleted(service, "take review decisions");

    const conflict = (detail: string) =>
      new ProblemException({
        code: "conflict",
        detail,
        extensions: { tool: tool.uid, reviewState: tool.reviewState, pendingHash: tool.pendingHash },
      });
    if (tool.removedAt !== null) throw conflict("The tool is no longer listed by its upstream.");
    const pending = tool.pendingDefinition;
    if (tool.reviewState !== "review_required" || tool.pendingHash === null || pending === null) {
      throw conflict("The tool has no changed definition awaiting review.");
    }
    if (body.definitionHash !== undefined && body.definitionHash !== tool.pendingHash) {
      throw conflict("The pending definition changed since it was reviewed.");
    }

    const at = now();
    const accepted = await db
      .update(tools)
      .set({
        description: pending.description ?? null,
        inputSchema: pending.inputSchema,
        outputSchema: pending.outputSchema ?? null,
        definitionHash: tool.pendingHash,
        reviewState: "accepted",
        pendingHash: null,
        pendingDefinition: null,
        acceptedBy: c.get("principal").actor,
        acceptedAt: at,
        updatedAt: at,
      })
      // Only the definition that was read is accepted; a refresh in between wins.
      .where(and(eq(tools.uid, tool.uid), eq(tools.pendingHash, tool.pendingHash)))
      .returning()
      .get();
    if (!accepted) throw conflict("The pending definition changed while it was being accepted.");
    return c.json(view({ tool: accepted, service }));
  });
