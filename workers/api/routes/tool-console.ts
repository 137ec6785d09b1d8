// What only tool adapters have besides the shared lifecycle routes (app.ts
// mounts those under `…/tools/{tool}/hook` too): the stage test console and
// the generated types, `…/tools/{tool}/hook/{test,types}`.
import { Hono } from "hono";
import { z } from "zod";
import { readWorkspaceConfig } from "../../../shared/config";
import { runAdapterStep } from "../../../shared/adapter/steps";
import type { JsonObject } from "../../../shared/json";
import { compileToolAdapter } from "../compiler";
import { generateAdapterTypes } from "../contract";
import { recordTestRun } from "../deploy/test-runs";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { AdapterRunAnswer, adapterRunAnswer } from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import { compileVersion, loadVersion, resolveToolDeployTarget } from "../targets";
import type { ApiEnv } from "../types";

const TestRequest = z
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

const ToolTestAnswer = AdapterRunAnswer.extend({
  id: z.string().describe("The run record's id"),
  version: z.number().int().describe("The version that ran"),
});

export const toolConsoleRoutes = new Hono<ApiEnv>()
  .get(
    "/types",
    operation({
      summary: "Generated TypeScript declarations (application/typescript)",
      ok: { "200": { description: "The declarations", media: "application/typescript" } },
      problems: [404],
    }),
    requireScope("hooks:read"),
    async (c) => {
      const { tool } = await resolveToolDeployTarget(c);
      const declarations = generateAdapterTypes({
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema ?? undefined,
        toolName: tool.publicName ?? tool.upstreamName,
      });
      return c.body(declarations, 200, { "content-type": "application/typescript; charset=utf-8" });
    },
  )

  .post(
    "/test",
    operation({
      summary: "Test console: run a stage with arguments or a mock result; recorded with the version",
      ok: { "200": { description: "The run, including `ok: false` hook failures", schema: ToolTestAnswer } },
      problems: [404, 409, 422, 429],
    }),
    requireScope("hooks:write"),
    ...jsonBody(TestRequest),
    async (c) => {
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
      const id = await recordTestRun(c.var.db, {
        scope: { workspaceUid: t.workspaceUid, target: t.target, toolUid: tool.uid, toolName, requestId },
        generation: head.generation,
        version: row.number,
        ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
        run,
        actor: principal.actor,
        keyId: principal.keyId,
        capture: { payloadCapture: service.payloadCapture, detailPolicy },
      });
      return c.json(shaped(ToolTestAnswer, { id, version: row.number, ...adapterRunAnswer(run) }));
    },
  );
