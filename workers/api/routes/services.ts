// Upstream MCP servers of a workspace: `…/services[/{svc}]`, their refresh
// (tools/list → indexed tools), deletion and history view.
import { Hono } from "hono";
import { z } from "zod";
import { KNOBS } from "../../../shared/knobs";
import { LIMITS } from "../../../shared/limits";
import { ProblemException } from "../../../shared/http/problem";
import { newId } from "../../../shared/ids";
import { SECRET_NAME_PATTERN, workspaceSecret } from "../../../shared/secrets/credentials";
import { toolsWithHookHistory } from "../services/history-guard";
import { SERVICE_NAME_MAX, SERVICE_NAME_PATTERN } from "../../../shared/services/names";
import { indexTools } from "../../../shared/services/refresh";
import { findService, now, toolsOfService, type ServiceRow } from "../../../shared/services/store";
import { listUpstreamTools, type UpstreamError } from "../../../shared/services/upstream";
import { ServiceAnswer, serviceView, ToolAnswer, toolView } from "../services/views";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { validQuery } from "../middleware/validate";
import { mapPage, pageOf, PageQuery, paginate } from "../middleware/page";
import { operation, shaped } from "../openapi/describe";
import { createService, listServices, markServiceDeleted, updateServiceSettings } from "../stores/services";
import { isDeleted, refuseDeleted, requireService, requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((text) => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  }, "Must be an absolute http:// or https:// URL")
  .refine((text) => {
    const url = URL.parse(text);
    return url === null || (url.username === "" && url.password === "");
  }, "Credentials do not belong in the URL; name a workspace secret in authorizationSecret")
  .transform((text) => new URL(text).href);

const ServiceTimeout = z
  .number()
  .int()
  .min(LIMITS.timeoutMinMs)
  .max(LIMITS.upstreamTimeoutMaxMs)
  .describe(
    `Bound on one upstream tools/call in ms (${LIMITS.timeoutMinMs}–${LIMITS.upstreamTimeoutMaxMs}; default ${LIMITS.upstreamTimeoutMs}); past it the call is refused with upstream_timeout`,
  );

const PayloadCapture = z.boolean().describe("Whether hook-run details of this service are captured");

const AuthorizationSecret = z
  .string()
  .regex(SECRET_NAME_PATTERN, "A workspace secret name")
  .nullable()
  .describe("Name of the workspace secret sent to the upstream as its bearer token");

const CreateServiceRequest = z
  .object({
    name: z
      .string()
      .min(1)
      .max(SERVICE_NAME_MAX)
      .regex(
        SERVICE_NAME_PATTERN,
        "Lower-case letters, digits, '-' and single '_' (not at the end); unique among the workspace's services",
      )
      .describe("Prefixes the service's tool names when two services expose the same name: {name}__{tool}"),
    url: httpUrl.describe("Streamable HTTP endpoint of the upstream MCP server"),
    payloadCapture: PayloadCapture.default(false),
    authorizationSecret: AuthorizationSecret.optional(),
    timeoutMs: ServiceTimeout.nullable().optional(),
  })
  .strict();

const UpdateServiceRequest = z
  .object({
    payloadCapture: PayloadCapture.optional(),
    authorizationSecret: AuthorizationSecret.optional(),
    timeoutMs: ServiceTimeout.nullable().optional().describe("null returns to the default"),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "Name at least one setting to change.");

const ServiceListQuery = PageQuery.extend({
  deleted: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe("List deleted (and legacy) services instead of live ones"),
});

const UPSTREAM_DETAIL: Record<UpstreamError["kind"], string> = {
  unreachable: "The upstream MCP server could not be reached or did not answer tools/list.",
  too_many_pages: "The upstream's tools/list did not end within the page limit.",
  too_many_tools: "The upstream lists more tools than one service may have.",
  duplicate_tool: "The upstream's tools/list names one tool twice.",
};

function upstreamProblem(service: ServiceRow, error: UpstreamError): ProblemException {
  const { kind, ...rest } = error;
  const extensions: Record<string, unknown> = { service: service.uid, reason: kind, ...rest };
  if ("message" in error) extensions.message = error.message.slice(0, KNOBS.upstreamMessageChars);
  return new ProblemException({ code: "upstream_unavailable", detail: UPSTREAM_DETAIL[kind], extensions });
}

const SERVICE = { description: "The service", schema: ServiceAnswer };

const RefreshAnswer = z.object({
  service: ServiceAnswer,
  added: z.array(z.string()).describe("Upstream names of the tools indexed for the first time"),
  changed: z.array(z.string()).describe("Upstream names of the tools whose definition changed"),
  removed: z.array(z.string()).describe("Upstream names of the tools no longer listed"),
  unchanged: z.array(z.string()),
  tools: z.array(ToolAnswer).describe("The service's tools as listed now"),
});

const HistoryAnswer = z.object({
  service: ServiceAnswer,
  historyOnly: z.boolean().describe("Only reset is allowed on a deleted service's hooks"),
  tools: z.array(ToolAnswer.extend({ hasHookHistory: z.boolean() })),
});

export const serviceRoutes = new Hono<ApiEnv>()
  .post(
    "/workspaces/:ws/services",
    operation({
      summary: "Register an upstream MCP server",
      ok: { "201": SERVICE },
      problems: [404, 409],
    }),
    requireScope("hooks:write"),
    ...jsonBody(CreateServiceRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const body = c.req.valid("json");
      const created = await createService(db, {
        uid: newId("svc"),
        workspaceUid: ws,
        name: body.name,
        url: body.url,
        payloadCapture: body.payloadCapture,
        authorizationSecret: body.authorizationSecret ?? null,
        timeoutMs: body.timeoutMs ?? null,
        createdBy: c.get("principal").actor,
      });
      if (!created) {
        throw new ProblemException({
          code: "conflict",
          detail: `A service named ${body.name} already exists in this workspace.`,
          extensions: { name: body.name },
        });
      }
      return c.json(serviceView(created), 201);
    },
  )
  .get(
    "/workspaces/:ws/services",
    operation({
      summary: "Services (`?deleted=true` for deleted ones)",
      ok: { "200": pageOf(ServiceAnswer) },
    }),
    requireScope("hooks:read"),
    validQuery(ServiceListQuery),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const query = c.req.valid("query");
      const page = await paginate(
        query,
        (after, limit) => listServices(db, ws, { deleted: query.deleted, after, limit }),
        (row) => row.uid,
      );
      return c.json(mapPage(page, serviceView));
    },
  )
  .get(
    "/workspaces/:ws/services/:svc",
    operation({ summary: "One service", ok: { "200": SERVICE }, problems: [404] }),
    requireScope("hooks:read"),
    async (c) => {
      const service = await requireService(c.var.db, c.req.param("ws"), c.req.param("svc"));
      return c.json(serviceView(service));
    },
  )
  .patch(
    "/workspaces/:ws/services/:svc",
    operation({
      summary: "Change a service's timeout, payload capture or authorization secret",
      ok: { "200": SERVICE },
      problems: [404, 409],
    }),
    requireScope("hooks:write"),
    ...jsonBody(UpdateServiceRequest),
    async (c) => {
      const db = c.var.db;
      const service = await requireService(db, c.req.param("ws"), c.req.param("svc"));
      refuseDeleted(service, "be changed");
      const updated = await updateServiceSettings(db, service.uid, c.req.valid("json"));
      if (!updated) {
        throw new ProblemException({
          code: "conflict",
          detail: `Service ${service.uid} was deleted while it was being changed.`,
          extensions: { service: service.uid },
        });
      }
      return c.json(serviceView(updated));
    },
  )
  .post(
    "/workspaces/:ws/services/:svc/refresh",
    operation({
      summary: "Index the upstream's tools/list",
      ok: { "200": { description: "What changed, and the service's tools", schema: RefreshAnswer } },
      problems: [404, 409, 502],
    }),
    requireScope("hooks:write"),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      const service = await requireService(db, ws, c.req.param("svc"));
      refuseDeleted(service, "be refreshed");

      let bearerToken: string | null = null;
      if (service.authorizationSecret !== null) {
        bearerToken = await workspaceSecret(c.env.DB, ws, service.authorizationSecret);
        if (bearerToken === null) {
          throw new ProblemException({
            code: "conflict",
            detail: `The service's authorization secret ${service.authorizationSecret} is not set in this workspace.`,
            extensions: { service: service.uid, secret: service.authorizationSecret },
          });
        }
      }

      const listed = await listUpstreamTools(service.url, { bearerToken });
      if (!listed.ok) throw upstreamProblem(service, listed.error);
      const indexed = await indexTools(db, service, listed.value);
      if (!indexed.ok) {
        const { name, bytes } = indexed.error;
        throw new ProblemException({
          code: "upstream_unavailable",
          detail: `The upstream's definition of ${name} is larger than a tool definition may be.`,
          extensions: { service: service.uid, reason: indexed.error.kind, tool: name, bytes },
        });
      }
      const { toolUids, ...summary } = indexed.value;
      const refreshed = (await findService(db, ws, service.uid)) ?? service;
      const rows = await toolsOfService(db, service.uid);
      const present = new Set(toolUids);
      return c.json(
        shaped(RefreshAnswer, {
          service: serviceView(refreshed),
          ...summary,
          tools: rows.filter((t) => present.has(t.uid)).map((t) => toolView(t, refreshed)),
        }),
      );
    },
  )
  .delete(
    "/workspaces/:ws/services/:svc",
    operation({
      summary: "Delete a service (409 while hook history exists)",
      ok: { "200": { description: "The deleted service", schema: ServiceAnswer } },
      problems: [404, 409],
    }),
    requireScope("hooks:write"),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      const service = await requireService(db, ws, c.req.param("svc"));
      refuseDeleted(service, "be deleted again");

      const rows = await toolsOfService(db, service.uid);
      const withHistory = await toolsWithHookHistory(
        c.env.DB,
        ws,
        rows.map((t) => t.uid),
      );
      if (withHistory.length > 0) {
        const byUid = new Map(rows.map((t) => [t.uid, t]));
        throw new ProblemException({
          code: "conflict",
          detail: "The service's tools still have hook history; reset their hooks before deleting it.",
          extensions: {
            service: service.uid,
            tools: withHistory.map((uid) => ({ uid, upstreamName: byUid.get(uid)?.upstreamName ?? null })),
          },
        });
      }

      const at = now();
      const row = await markServiceDeleted(db, ws, service.uid, { actor: c.get("principal").actor, at });
      // Someone else deleted it between the read and the write.
      if (!row) refuseDeleted({ ...service, deletedAt: at }, "be deleted again");
      return c.json(serviceView(row ?? service));
    },
  )
  .get(
    "/workspaces/:ws/services/:svc/history",
    operation({
      summary: "History-only view of a service's tools",
      ok: {
        "200": {
          description: "The service and its tools, with whether each has hook history",
          schema: HistoryAnswer,
        },
      },
      problems: [404],
    }),
    requireScope("hooks:read"),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      const service = await requireService(db, ws, c.req.param("svc"));
      const rows = await toolsOfService(db, service.uid);
      const withHistory = new Set(
        await toolsWithHookHistory(
          c.env.DB,
          ws,
          rows.map((t) => t.uid),
        ),
      );
      return c.json(
        shaped(HistoryAnswer, {
          service: serviceView(service),
          /** Only reset is allowed on a deleted service's hooks. */
          historyOnly: isDeleted(service),
          tools: rows.map((t) => ({ ...toolView(t, service), hasHookHistory: withHistory.has(t.uid) })),
        }),
      );
    },
  );
