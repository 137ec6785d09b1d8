// Access profiles (`PUT/GET /v1/workspaces/{ws}/access-profiles[/{name}]`) and
// the gateway settings of one tool (`GET/PUT …/tools/{tool}/gateway`: risk and
// response projection). Admin writes; reads need hooks:read.
import { Hono } from "hono";
import { z } from "zod";
import {
  DEFAULT_PROFILE,
  DEFAULT_TOOL_RISK,
  defaultRisk,
  PROFILE_LIST_MAX,
  PROFILE_NAME_PATTERN,
} from "../../../shared/access";
import { RISK_LEVELS } from "../../../shared/db/schema";
import { ProblemException } from "../../../shared/http/problem";
import { isJsonPointer } from "../../../shared/mcp/tool-results";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { operation, shaped } from "../openapi/describe";
import {
  type AccessProfileRow,
  findAccessProfile,
  listAccessProfiles,
  putAccessProfile,
} from "../stores/access-profiles";
import { findToolGatewaySettings, putToolGatewaySettings } from "../stores/tool-gateway-settings";
import { requireTool, requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

/** JSON pointers one tool's response projection may keep. */
export const PROJECTION_MAX_POINTERS = 64;

const toolList = z
  .array(z.string().min(1).max(300))
  .max(PROFILE_LIST_MAX)
  .refine((list) => new Set(list).size === list.length, "Entries must be unique");

const PutAccessProfileRequest = z
  .object({
    allowedTools: toolList
      .nullable()
      .optional()
      .describe("Public tool names or tool uids the profile may call; absent or null = every tool"),
    blockedTools: toolList.optional().describe("Public tool names or tool uids the profile may never call"),
    approvalRisk: z
      .enum(RISK_LEVELS)
      .nullable()
      .optional()
      .describe("Calls to tools at or above this risk need a one-call approval; null = never"),
  })
  .strict();

const PutToolGatewayRequest = z
  .object({
    risk: z
      .enum(RISK_LEVELS)
      .nullable()
      .optional()
      .describe(
        `The tool's risk; null = high when the upstream marks it destructive, else ${DEFAULT_TOOL_RISK}`,
      ),
    projection: z
      .array(z.string().max(300).refine(isJsonPointer, 'A JSON pointer ("" or starting with /)'))
      .max(PROJECTION_MAX_POINTERS)
      .nullable()
      .optional()
      .describe("JSON pointers kept from the result's structuredContent; null = the whole result"),
  })
  .strict();

const ProfileAnswer = z.object({
  name: z.string(),
  allowedTools: z.array(z.string()).nullable().describe("null = every tool"),
  blockedTools: z.array(z.string()),
  approvalRisk: z.enum(RISK_LEVELS).nullable(),
  updatedBy: z.string().nullable().describe("null for the default profile until it is written"),
  updatedAt: z.string().nullable(),
});
const PROFILE = { description: "The access profile", schema: ProfileAnswer };

const ToolGatewayAnswer = z.object({
  tool: z.string(),
  risk: z.enum(RISK_LEVELS).describe("The tool's risk in force (its own, else the default)"),
  projection: z.array(z.string()).nullable().describe("JSON pointers kept; null = the whole result"),
});
const TOOL_GATEWAY = { description: "The tool's risk and response projection", schema: ToolGatewayAnswer };

const profileView = (row: AccessProfileRow) =>
  shaped(ProfileAnswer, {
    name: row.name,
    allowedTools: row.allowedTools,
    blockedTools: row.blockedTools,
    approvalRisk: row.approvalRisk,
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  });

const defaultView = () =>
  shaped(ProfileAnswer, {
    name: DEFAULT_PROFILE,
    allowedTools: null,
    blockedTools: [],
    approvalRisk: null,
    updatedBy: null,
    updatedAt: null,
  });

function profileName(name: string): string {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new ProblemException({
      code: "invalid_request",
      detail: `${name} is not a valid access profile name.`,
    });
  }
  return name;
}

export const accessProfileRoutes = new Hono<ApiEnv>()
  .get(
    "/workspaces/:ws/access-profiles",
    operation({
      summary: "Access profiles (default is open until written)",
      ok: { "200": { description: "`{ items }`", schema: z.object({ items: z.array(ProfileAnswer) }) } },
      problems: [404],
    }),
    requireScope("hooks:read"),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const items = (await listAccessProfiles(db, ws)).map(profileView);
      // "default" always exists: open until written.
      if (!items.some((p) => p.name === DEFAULT_PROFILE)) return c.json({ items: [defaultView(), ...items] });
      return c.json({ items });
    },
  )
  .get(
    "/workspaces/:ws/access-profiles/:name",
    operation({ summary: "One access profile", ok: { "200": PROFILE }, problems: [400, 404] }),
    requireScope("hooks:read"),
    async (c) => {
      const ws = c.req.param("ws");
      const name = profileName(c.req.param("name"));
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const row = await findAccessProfile(db, ws, name);
      if (row) return c.json(profileView(row));
      if (name === DEFAULT_PROFILE) return c.json(defaultView());
      throw new ProblemException({
        code: "not_found",
        detail: `No access profile ${name} in this workspace.`,
      });
    },
  )
  .put(
    "/workspaces/:ws/access-profiles/:name",
    operation({ summary: "Create or replace an access profile", ok: { "200": PROFILE }, problems: [404] }),
    requireScope("admin"),
    ...jsonBody(PutAccessProfileRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const name = profileName(c.req.param("name"));
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const body = c.req.valid("json");
      const row = await putAccessProfile(db, ws, name, {
        allowedTools: body.allowedTools ?? null,
        blockedTools: body.blockedTools ?? [],
        approvalRisk: body.approvalRisk ?? null,
        updatedBy: c.get("principal").actor,
        updatedAt: new Date().toISOString(),
      });
      return c.json(profileView(row));
    },
  )
  .get(
    "/workspaces/:ws/tools/:tool/gateway",
    operation({
      summary: "A tool's risk and response projection",
      ok: { "200": TOOL_GATEWAY },
      problems: [404],
    }),
    requireScope("hooks:read"),
    async (c) => {
      const db = c.var.db;
      const { tool } = await requireTool(db, c.req.param("ws"), c.req.param("tool"));
      const row = await findToolGatewaySettings(db, tool.uid);
      return c.json(
        shaped(ToolGatewayAnswer, {
          tool: tool.uid,
          risk: row?.risk ?? defaultRisk(tool),
          projection: row?.projection ?? null,
        }),
      );
    },
  )
  .put(
    "/workspaces/:ws/tools/:tool/gateway",
    operation({
      summary: "Set a tool's risk and response projection",
      ok: { "200": TOOL_GATEWAY },
      problems: [404],
    }),
    requireScope("admin"),
    ...jsonBody(PutToolGatewayRequest),
    async (c) => {
      const db = c.var.db;
      const { tool } = await requireTool(db, c.req.param("ws"), c.req.param("tool"));
      const body = c.req.valid("json");
      const row = await putToolGatewaySettings(db, tool, {
        risk: body.risk ?? null,
        projection: body.projection ?? null,
        updatedBy: c.get("principal").actor,
        updatedAt: new Date().toISOString(),
      });
      return c.json(
        shaped(ToolGatewayAnswer, {
          tool: tool.uid,
          risk: row.risk ?? defaultRisk(tool),
          projection: row.projection,
        }),
      );
    },
  );
