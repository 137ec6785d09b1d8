// Indexed tools of a workspace: `GET …/tools[/{tool}]`, and accepting a
// changed upstream definition (`POST …/tools/{tool}/review/accept`).
import { Hono } from "hono";
import { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { now, type ServiceRow, type ToolRow } from "../../../shared/services/store";
import { ToolAnswer, toolView } from "../services/views";
import { requireScope } from "../middleware/auth";
import { limitBody, optionalJsonBody } from "../middleware/json-body";
import { validQuery } from "../middleware/validate";
import { mapPage, pageOf, PageQuery, paginate } from "../middleware/page";
import { operation, shaped } from "../openapi/describe";
import { acceptPendingDefinition, listLiveTools } from "../stores/tools";
import { isDeleted, refuseDeleted, requireTool, requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const SHA256_HEX = /^[0-9a-f]{64}$/;

const AcceptReviewRequest = z
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

const IndexedToolAnswer = ToolAnswer.extend({ serviceDeleted: z.boolean() });
const TOOL = { description: "The tool", schema: IndexedToolAnswer };

const view = (found: { tool: ToolRow; service: ServiceRow }) =>
  shaped(IndexedToolAnswer, {
    ...toolView(found.tool, found.service),
    serviceDeleted: isDeleted(found.service),
  });

export const toolRoutes = new Hono<ApiEnv>()
  .get(
    "/workspaces/:ws/tools",
    operation({
      summary: "Indexed tools with upstream schemas, definition hash, review state",
      ok: { "200": pageOf(IndexedToolAnswer) },
    }),
    requireScope("hooks:read"),
    validQuery(ToolListQuery),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const query = c.req.valid("query");
      const page = await paginate(
        query,
        (after, limit) => listLiveTools(db, ws, { service: query.service, after, limit }),
        (row) => row.tool.uid,
      );
      return c.json(mapPage(page, view));
    },
  )
  .get(
    "/workspaces/:ws/tools/:tool",
    operation({ summary: "One indexed tool", ok: { "200": TOOL }, problems: [404] }),
    requireScope("hooks:read"),
    async (c) => {
      return c.json(view(await requireTool(c.var.db, c.req.param("ws"), c.req.param("tool"))));
    },
  )
  .post(
    "/workspaces/:ws/tools/:tool/review/accept",
    operation({
      summary: "Accept a changed upstream definition",
      optionalBody: AcceptReviewRequest,
      ok: { "200": TOOL },
      problems: [400, 404, 409, 415],
    }),
    requireScope("hooks:write"),
    limitBody(),
    async (c) => {
      const db = c.var.db;
      const { tool, service } = await requireTool(db, c.req.param("ws"), c.req.param("tool"));
      const body = await optionalJsonBody(c.req.raw, AcceptReviewRequest);
      refuseDeleted(service, "take review decisions");

      const conflict = (detail: string) =>
        new ProblemException({
          code: "conflict",
          detail,
          extensions: { tool: tool.uid, reviewState: tool.reviewState, pendingHash: tool.pendingHash },
        });
      if (tool.removedAt !== null) throw conflict("The tool is no longer listed by its upstream.");
      const { pendingHash, pendingDefinition } = tool;
      if (tool.reviewState !== "review_required" || pendingHash === null || pendingDefinition === null) {
        throw conflict("The tool has no changed definition awaiting review.");
      }
      if (body.definitionHash !== undefined && body.definitionHash !== pendingHash) {
        throw conflict("The pending definition changed since it was reviewed.");
      }

      const accepted = await acceptPendingDefinition(
        db,
        { ...tool, pendingHash, pendingDefinition },
        { actor: c.get("principal").actor, at: now() },
      );
      if (!accepted) throw conflict("The pending definition changed while it was being accepted.");
      return c.json(view({ tool: accepted, service }));
    },
  );
