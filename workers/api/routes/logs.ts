// Hook-run logs: `GET {base}/logs` for one lifecycle target (app.ts mounts it
// under `…/tools/{tool}/hook` and `…/files/{path}`) and
// `GET /v1/workspaces/{ws}/hooks/logs` (every hook of the workspace). Metadata
// for hooks:read keys; captured details only for keys that may write hooks and
// for admin users.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { seesRunDetails } from "../../../shared/auth/principal";
import { ProblemException } from "../../../shared/http/problem";
import { isTarget } from "../../../shared/lifecycle/target";
import { listRuns, RUN_ID, type RunFilters, type RunView } from "../../../shared/logs/query";
import { HOOK_KINDS, RUN_CHANNELS, RUN_MODES, RUN_OUTCOMES, RUN_STAGES } from "../../../shared/db/run-types";
import { requireScope } from "../middleware/auth";
import { HookLogAnswer } from "../lifecycle/answers";
import { pageOf, PageQuery, paginate } from "../middleware/page";
import { validQuery } from "../middleware/validate";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace, type Resolver } from "../targets";
import type { ApiEnv } from "../types";

export const LOG_FORMATS = ["json", "ndjson"] as const;
export const NDJSON = "application/x-ndjson";

const instant = z.iso.datetime({ offset: true }).describe("ISO-8601 time, e.g. 2031-05-06T10:00:00Z");

const TargetLogsQuery = z
  .object({
    stage: z.enum(RUN_STAGES).optional(),
    outcome: z.enum(RUN_OUTCOMES).optional(),
    channel: z.enum(RUN_CHANNELS).optional(),
    kind: z.enum(HOOK_KINDS).optional(),
    mode: z
      .enum(RUN_MODES)
      .optional()
      .describe("code: Code Mode executions and the calls their code made; direct: every other run"),
    revision: z.string().min(1).max(200).optional().describe("Deployment revision id"),
    requestId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("The request's runs and those of the calls made under it (<id>.1, <id>.2, … from Code Mode)"),
    since: instant.optional().describe("Runs at or after this time"),
    until: instant.optional().describe("Runs at or before this time"),
    limit: PageQuery.shape.limit,
    cursor: PageQuery.shape.cursor,
    format: z.enum(LOG_FORMATS).optional().describe("json (default) or ndjson"),
  })
  .strict();

const WorkspaceLogsQuery = TargetLogsQuery.extend({
  tool: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("A tool's uid or the name it was called by: every run on calls of that tool"),
  target: z.string().refine(isTarget, "A target is tool:<uid> or file:<path>").optional(),
}).strict();

export { TargetLogsQuery, WorkspaceLogsQuery };

type TargetQuery = z.output<typeof TargetLogsQuery>;

const query = <S extends z.ZodType>(schema: S) => validQuery(schema, "Invalid log filters.");

/** One run record. */
const RunAnswer = z.object({
  id: z.string().describe("Leads with the run's time: ids sort oldest first"),
  at: z.string(),
  workspaceUid: z.string(),
  kind: z.enum(HOOK_KINDS),
  target: z.string(),
  toolUid: z.string().nullable(),
  toolName: z.string().nullable(),
  stage: z.enum(RUN_STAGES),
  channel: z.enum(RUN_CHANNELS),
  outcome: z.enum(RUN_OUTCOMES),
  code: z.string().nullable(),
  revisionId: z.string().nullable(),
  requestId: z.string(),
  durationMs: z.number(),
  fuelUsed: z.number(),
  shadowDiffered: z.boolean().nullable(),
  loop: z.string().nullable(),
  plugin: z.string().nullable(),
  mode: z.enum(RUN_MODES),
  turnError: z.boolean().nullable(),
  attempt: z.number().int().nullable(),
  details: z
    .object({
      reason: z.string().optional(),
      message: z.string().optional(),
      logs: z.array(HookLogAnswer).optional(),
      error: z.string().optional(),
      arguments: z.unknown().optional(),
      result: z.unknown().optional(),
      truncated: z.object({ omitted: z.array(z.string()), logsDropped: z.number().int() }).optional(),
    })
    .nullable()
    .optional()
    .describe("Captured details (reason, message, logs, arguments, result), for keys that may see them"),
});

/** JSON pages, or one record per line; `X-Next-Cursor` and `Link` name the next page either way. */
const LOG_PAGE = pageOf(
  RunAnswer,
  "A page `{ items, nextCursor }` (`?limit=&cursor=`); or NDJSON (" +
    NDJSON +
    "), one record per line, with ?format=ndjson or Accept",
);

function timeRange(q: TargetQuery): Pick<RunFilters, "sinceMs" | "untilMs"> {
  const sinceMs = q.since === undefined ? undefined : Date.parse(q.since);
  const untilMs = q.until === undefined ? undefined : Date.parse(q.until);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw new ProblemException({
      code: "invalid_request",
      detail: "Invalid log filters.",
      extensions: { errors: [{ path: "/until", message: "until is before since" }] },
    });
  }
  return { sinceMs, untilMs };
}

function filtersOf(workspaceUid: string, q: TargetQuery): RunFilters {
  return {
    workspaceUid,
    stage: q.stage,
    outcome: q.outcome,
    channel: q.channel,
    kind: q.kind,
    mode: q.mode,
    revisionId: q.revision,
    requestId: q.requestId,
    ...timeRange(q),
  };
}

/** `?format=` decides; without it an `Accept: application/x-ndjson` asks for NDJSON. */
function wantsNdjson(c: Context<ApiEnv>, format: TargetQuery["format"]): boolean {
  if (format !== undefined) return format === "ndjson";
  return (c.req.header("accept") ?? "").toLowerCase().includes(NDJSON);
}

/**
 * A page in the asked format. JSON: `{ items, nextCursor }`. NDJSON: one record
 * per line, nothing else in the body. Both carry the next page's cursor in
 * `X-Next-Cursor` and a `Link: <…>; rel="next"` header while more may follow.
 */
async function answer(c: Context<ApiEnv>, filters: RunFilters, q: TargetQuery) {
  const principal = c.get("principal");
  const withDetails = seesRunDetails(principal, filters.workspaceUid);
  const page = await paginate(
    q,
    (after, limit) => listRuns(c.env.DB, filters, { limit, after, withDetails }),
    (run) => run.id,
    (id) => RUN_ID.test(id),
  );
  if (page.nextCursor !== null) {
    const next = new URL(c.req.url);
    next.searchParams.set("cursor", page.nextCursor);
    c.header("x-next-cursor", page.nextCursor);
    c.header("link", `<${next.pathname}${next.search}>; rel="next"`);
  }
  c.header("vary", "accept");
  if (wantsNdjson(c, q.format)) {
    const body = page.items.map((item: RunView) => `${JSON.stringify(item)}\n`).join("");
    return c.body(body, 200, { "content-type": `${NDJSON}; charset=utf-8` });
  }
  return c.json(shaped(LOG_PAGE.schema, page));
}

/** The logs of one lifecycle target, mounted under its base path (`…/hook`, `…/files/{path}`). */
export function targetLogRoutes(resolve: Resolver) {
  return new Hono<ApiEnv>().get(
    "/logs",
    operation({
      summary: "This hook's run records (?format=json|ndjson, filters, cursor)",
      ok: { "200": LOG_PAGE },
      problems: [404],
    }),
    requireScope("hooks:read"),
    query(TargetLogsQuery),
    async (c) => {
      const t = await resolve(c);
      const q = c.req.valid("query");
      return answer(c, { ...filtersOf(t.workspaceUid, q), target: t.target }, q);
    },
  );
}

export const logRoutes = new Hono<ApiEnv>().get(
  "/workspaces/:ws/hooks/logs",
  operation({
    summary: "Every hook's run records (?format=json|ndjson, filters, cursor)",
    ok: { "200": LOG_PAGE },
    problems: [404],
  }),
  requireScope("hooks:read"),
  query(WorkspaceLogsQuery),
  async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(c.var.db, ws);
    const q = c.req.valid("query");
    return answer(c, { ...filtersOf(ws, q), tool: q.tool, target: q.target }, q);
  },
);
