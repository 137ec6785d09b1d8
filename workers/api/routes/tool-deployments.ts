// A tool adapter's deployment routes: the generic compile/deploy/rollback/reset
// routes with the tool's compiler and rules, plus what only tools have — the
// stage test console and generated types:
// `…/tools/{tool}/hook/{compile,test,types,deployments,revisions,rollback,shadow,reset}`.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { readWorkspaceConfig } from "../../../shared/config";
import { revisionView } from "../../../shared/deploy/revisions";
import { recordTestRun } from "../../../shared/deploy/test-runs";
import { generateAdapterTypes } from "../../../shared/hooks";
import { ProblemException } from "../../../shared/http/problem";
import type { JsonObject } from "../../../shared/json";
import { toolTarget } from "../../../shared/lifecycle/target";
import { runAdapterStep } from "../../../shared/pipeline/adapter-steps";
import { ok } from "../../../shared/result";
import { compileToolAdapter } from "../compiler";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import type { ApiEnv } from "../types";
import { compileVersion, deploymentRoutes, loadVersion, type DeployTarget } from "./deployments";
import { routeTool } from "./hooks";
import { refuseDeleted } from "./services";

const HOOK = "/workspaces/:ws/tools/:tool/hook";

export const TestRequest = z
  .object({
    stage: z.enum(["before", "after"]),
    arguments: z.json().optional().describe("Public arguments (before), or the call's arguments (after)"),
    result: z
      .json()
      .optional()
      .describe("Mock upstream result for the after stage; the upstream is never called"),
    version: z.number().int().min(1).optional().describe("The version to test; the draft's when omitted"),
  })
  .strict()
  .refine((b) => b.stage !== "after" || b.result !== undefined, {
    message: "The after stage needs a mock `result`.",
    path: ["result"],
  });

/** The tool, its service, and the tool's rules for the generic deployment routes. */
async function resolveToolDeployTarget(c: Context<ApiEnv>) {
  const { workspaceUid, toolUid, tool, service } = await routeTool(c);
  const target: DeployTarget = {
    workspaceUid,
    target: toolTarget(toolUid),
    label: toolUid,
    refuseWrite: (action) => refuseDeleted(service, action),
    definitionHash: tool.definitionHash,
    // The live deployment of a tool whose service is gone or which the upstream dropped stays as it is.
    refuseDeploy: (action) => {
      refuseDeleted(service, action);
      if (tool.removedAt !== null) {
        throw new ProblemException({
          code: "conflict",
          detail: `The upstream no longer offers this tool; it cannot ${action}.`,
        });
      }
    },
    compile: async (source, config) => {
      const compiled = await compileToolAdapter({ source, config });
      if (!compiled.ok) return compiled;
      const { code, hash, compiledBytes, publicContract, stages } = compiled.value;
      return ok({
        code,
        hash,
        compiledBytes,
        config: compiled.value.config,
        publicContract: publicContract as JsonObject | null,
        stages,
        exports: null,
        summary: { publicContract, compiledBytes, hash, stages },
      });
    },
    revisionView,
  };
  return { ...target, tool, service };
}

const toolConsoleRoutes = new Hono<ApiEnv>()
  .get("/types", requireScope("hooks:read"), async (c) => {
    const { tool } = await resolveToolDeployTarget(c);
    const declarations = generateAdapterTypes({
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? undefined,
      toolName: tool.publicName ?? tool.upstreamName,
    });
    return c.body(declarations, 200, { "content-type": "application/typescript; charset=utf-8" });
  })

  .post("/test", requireScope("hooks:write"), ...jsonBody(TestRequest), async (c) => {
    const body = c.req.valid("json");
    const t = await resolveToolDeployTarget(c);
    const { tool, service } = t;
    const { head, row, config } = await loadVersion(c, t, body.version);
    const adapter = await compileVersion(c, () => compileToolAdapter({ source: row.source, config }));
    const principal = c.get("principal");
    const requestId = crypto.randomUUID();
    const toolName = tool.publicName ?? tool.upstreamName;
    // The tool's real context values; the upstream is never contacted (after uses the mock result).
    const run = await runAdapterStep({
      adapter,
      stage: body.stage,
      upstream: {
        inputSchema: tool.inputSchema as JsonObject,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonObject } : {}),
      },
      ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
      ...(body.result === undefined ? {} : { result: body.result }),
      context: {
        calledAt: new Date().toISOString(),
        requestId,
        workspaceUid: t.workspaceUid,
        connectionId: service.uid,
        toolUid: tool.uid,
        toolName,
        config,
      },
    });
    // Stored under the rules of the tool's production records: its service's payload capture and the
    // workspace's detail policy (the answer below still carries everything: the caller sent it).
    const detailPolicy = service.payloadCapture
      ? (await readWorkspaceConfig(c.env.DB, t.workspaceUid)).detailPolicy
      : "none";
    const id = await recordTestRun(c.env.DB, {
      scope: { workspaceUid: t.workspaceUid, target: t.target, toolUid: tool.uid, toolName, requestId },
      generation: head.generation,
      version: row.number,
      ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
      run,
      actor: principal.actor,
      keyId: principal.keyId,
      capture: { payloadCapture: service.payloadCapture, detailPolicy },
    });
    return c.json({ id, version: row.number, ...run });
  });

export const toolDeploymentRoutes = new Hono<ApiEnv>()
  .route(HOOK, deploymentRoutes(resolveToolDeployTarget))
  .route(HOOK, toolConsoleRoutes);
