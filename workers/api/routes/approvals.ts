// One-call approvals: `GET /v1/workspaces/{ws}/approvals` (pending by default,
// `?status=`), `POST …/approvals/{id}/approve` and `…/deny`.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import {
  APPROVAL_VIEW_STATUSES,
  approvalView,
  decideApproval,
  getApproval,
  listApprovals,
} from "../../../shared/approvals";
import { ProblemException } from "../../../shared/http/problem";
import { requireScope } from "../middleware/auth";
import { validQuery } from "../middleware/validate";
import { mapPage, pageOf, PageQuery, paginate } from "../middleware/page";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const ApprovalListQuery = PageQuery.extend({
  status: z.enum(APPROVAL_VIEW_STATUSES).default("pending").describe("Which approvals to list"),
});

const listQuery = validQuery(ApprovalListQuery);

const ApprovalAnswer = z.object({
  id: z.string(),
  status: z.enum(APPROVAL_VIEW_STATUSES),
  toolUid: z.string(),
  toolName: z.string(),
  revisionId: z.string().nullable(),
  source: z.string().describe("What asked for the approval: hook, host_call or risk"),
  reason: z.string(),
  arguments: z.unknown().describe("The call's arguments, which an approved repeat must send unchanged"),
  callHash: z.string(),
  actor: z.string(),
  keyId: z.string(),
  requestId: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  usedAt: z.string().nullable(),
});
const APPROVAL = { description: "The approval", schema: ApprovalAnswer };

async function decision(c: Context<ApiEnv>, decided: "approved" | "denied") {
  const ws = c.req.param("ws") ?? "";
  const id = c.req.param("id") ?? "";
  const now = Date.now();
  const outcome = await decideApproval(c.env.DB, ws, id, decided, c.get("principal").actor, now);
  if (outcome.kind === "not_found") {
    throw new ProblemException({ code: "not_found", detail: "No such approval in this workspace." });
  }
  if (outcome.kind === "not_pending") {
    throw new ProblemException({
      code: "conflict",
      detail: `The approval is ${outcome.status}; only pending approvals can be decided.`,
      extensions: { status: outcome.status },
    });
  }
  return c.json(shaped(ApprovalAnswer, approvalView(outcome.row, now)));
}

export const approvalRoutes = new Hono<ApiEnv>()
  .get(
    "/workspaces/:ws/approvals",
    operation({
      summary: "Approvals (?status=pending|approved|denied|used|expired)",
      ok: { "200": pageOf(ApprovalAnswer) },
      problems: [404],
    }),
    requireScope("hooks:read"),
    listQuery,
    async (c) => {
      const ws = c.req.param("ws");
      await requireWorkspace(c.var.db, ws);
      const query = c.req.valid("query");
      const now = Date.now();
      const page = await paginate(
        query,
        (after, limit) => listApprovals(c.env.DB, ws, query.status, { limit, after }, now),
        (row) => row.id,
      );
      return c.json(mapPage(page, (row) => shaped(ApprovalAnswer, approvalView(row, now))));
    },
  )
  .get(
    "/workspaces/:ws/approvals/:id",
    operation({ summary: "One approval", ok: { "200": APPROVAL }, problems: [404] }),
    requireScope("hooks:read"),
    async (c) => {
      const row = await getApproval(c.env.DB, c.req.param("ws"), c.req.param("id"));
      if (!row)
        throw new ProblemException({ code: "not_found", detail: "No such approval in this workspace." });
      return c.json(shaped(ApprovalAnswer, approvalView(row, Date.now())));
    },
  )
  .post(
    "/workspaces/:ws/approvals/:id/approve",
    operation({
      summary: "Approve a pending one-call approval",
      ok: { "200": APPROVAL },
      problems: [404, 409],
    }),
    requireScope("hooks:write"),
    (c) => decision(c, "approved"),
  )
  .post(
    "/workspaces/:ws/approvals/:id/deny",
    operation({ summary: "Deny a pending one-call approval", ok: { "200": APPROVAL }, problems: [404, 409] }),
    requireScope("hooks:write"),
    (c) => decision(c, "denied"),
  );
