// Access profiles (`PUT/GET /v1/workspaces/{ws}/access-profiles[/{name}]`) and
// the gateway settings of one tool (`GET/PUT …/tools/{tool}/gateway`: risk and
// response projection). Admin writes; reads need hooks:read.
import { and, asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import {
  DEFAULT_PROFILE,
  DEFAULT_TOOL_RISK,
  defaultRisk,
  PROFILE_LIST_MAX,
  PROFILE_NAME_PATTERN,
} from "../../../shared/access";
import { database } from "../../../shared/db/client";
import { accessProfiles, RISK_LEVELS, toolGatewaySettings } from "../../../shared/db/schema";
import { ProblemException } from "../../../shared/http/problem";
import { isJsonPointer } from "../../../shared/pipeline/results";
import { findTool } from "../../../shared/services/store";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import type { ApiEnv } from "../types";
import { requireWorkspace } from "./services";

/** JSON pointers one tool's response projection may keep. */
export const PROJECTION_MAX_POINTERS = 64;

const toolList = z
  .array(z.string().min(1).max(300))
  .max(PROFILE_LIST_MAX)
  .refine((list) => new Set(list).size === list.length, "Entries must be unique");

export const PutAccessProfileRequest = z
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

export const PutToolGatewayRequest = z
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

const profileView = (row: typeof accessProfiles.$inferSelect) => ({
  name: row.name,
  allowedTools: row.allowedTools,
  blockedTools: row.blockedTools,
  approvalRisk: row.approvalRisk,
  updatedBy: row.updatedBy,
  updatedAt: row.updatedAt,
});

const defaultView = () => ({
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

async function requireTool(db: D1Database, ws: string, toolUid: string) {
  const found = await findTool(database(db), ws, toolUid);
  if (!found)
    throw new ProblemException({ code: "not_found", detail: `No tool ${toolUid} in this workspace.` });
  return found;
}

export const accessProfileRoutes = new Hono<ApiEnv>()
  .get("/workspaces/:ws/access-profiles", requireScope("hooks:read"), async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(database(c.env.DB), ws);
    const rows = await database(c.env.DB)
      .select()
      .from(accessProfiles)
      .where(eq(accessProfiles.workspaceUid, ws))
      .orderBy(asc(accessProfiles.name))
      .all();
    const items = rows.map(profileView);
    // "default" always exists: open until written.
    if (!items.some((p) => p.name === DEFAULT_PROFILE)) return c.json({ items: [defaultView(), ...items] });
    return c.json({ items });
  })
  .get("/workspaces/:ws/access-profiles/:name", requireScope("hooks:read"), async (c) => {
    const ws = c.req.param("ws");
    const name = profileName(c.req.param("name"));
    await requireWorkspace(database(c.env.DB), ws);
    const row = await database(c.env.DB)
      .select()
      .from(accessProfiles)
      .where(and(eq(accessProfiles.workspaceUid, ws), eq(accessProfiles.name, name)))
      .get();
    if (row) return c.json(profileView(row));
    if (name === DEFAULT_PROFILE) return c.json(defaultView());
    throw new ProblemException({ code: "not_found", detail: `No access profile ${name} in this workspace.` });
  })
  .put(
    "/workspaces/:ws/access-profiles/:name",
    requireScope("admin"),
    ...jsonBody(PutAccessProfileRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const name = profileName(c.req.param("name"));
      await requireWorkspace(database(c.env.DB), ws);
      const body = c.req.valid("json");
      const values = {
        allowedTools: body.allowedTools ?? null,
        blockedTools: body.blockedTools ?? [],
        approvalRisk: body.approvalRisk ?? null,
        updatedBy: c.get("principal").actor,
        updatedAt: new Date().toISOString(),
      };
      const row = await database(c.env.DB)
        .insert(accessProfiles)
        .values({ workspaceUid: ws, name, ...values })
        .onConflictDoUpdate({ target: [accessProfiles.workspaceUid, accessProfiles.name], set: values })
        .returning()
        .get();
      return c.json(profileView(row));
    },
  )
  .get("/workspaces/:ws/tools/:tool/gateway", requireScope("hooks:read"), async (c) => {
    const ws = c.req.param("ws");
    const { tool } = await requireTool(c.env.DB, ws, c.req.param("tool"));
    const row = await database(c.env.DB)
      .select()
      .from(toolGatewaySettings)
      .where(eq(toolGatewaySettings.toolUid, tool.uid))
      .get();
    return c.json({
      tool: tool.uid,
      risk: row?.risk ?? defaultRisk(tool),
      projection: row?.projection ?? null,
    });
  })
  .put(
    "/workspaces/:ws/tools/:tool/gateway",
    requireScope("admin"),
    ...jsonBody(PutToolGatewayRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const { tool } = await requireTool(c.env.DB, ws, c.req.param("tool"));
      const body = c.req.valid("json");
      const values = {
        risk: body.risk ?? null,
        projection: body.projection ?? null,
        updatedBy: c.get("principal").actor,
        updatedAt: new Date().toISOString(),
      };
      const row = await database(c.env.DB)
        .insert(toolGatewaySettings)
        .values({ toolUid: tool.uid, workspaceUid: ws, ...values })
        .onConflictDoUpdate({ target: toolGatewaySettings.toolUid, set: values })
        .returning()
        .get();
      return c.json({ tool: tool.uid, risk: row.risk ?? defaultRisk(tool), projection: row.projection });
    },
  );
