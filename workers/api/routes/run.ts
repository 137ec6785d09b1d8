import { Hono } from "hono";
import { z } from "zod";
import { problemResponse } from "../../../shared/http/problem";
import { runAdapterStep } from "../../../shared/adapter/steps";
import type { Json, JsonObject } from "../../../shared/json";
import { compileToolAdapter } from "../compiler";
import { requireScope } from "../middleware/auth";
import { chargeCompilation } from "../middleware/quota";
import { jsonBody } from "../middleware/json-body";
import { AdapterRunAnswer, adapterRunAnswer } from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import type { ApiEnv } from "../types";

const jsonValue: z.ZodType<Json> = z.json();
const jsonSchemaObject = z.record(z.string(), jsonValue) as z.ZodType<JsonObject>;

const RunRequest = z
  .object({
    source: z.string(),
    config: z.unknown().optional(),
    stage: z.enum(["before", "after"]),
    arguments: jsonValue.optional().describe("Public arguments (before), or the call's arguments (after)"),
    result: jsonValue.optional().describe("Mock upstream result for the after stage"),
    upstream: z
      .object({ inputSchema: jsonSchemaObject.optional(), outputSchema: jsonSchemaObject.optional() })
      .strict()
      .optional()
      .describe("The tool's upstream schemas, to validate the transformed call as the gateway would"),
    toolName: z.string().min(1).max(128).optional(),
  })
  .strict()
  .refine((body) => body.stage !== "after" || body.result !== undefined, {
    message: "The after stage needs a mock `result`.",
    path: ["result"],
  });

const PlaygroundRunAnswer = AdapterRunAnswer.extend({
  compiled: z.object({ hash: z.string(), compiledBytes: z.number().int(), stages: z.array(z.string()) }),
});

export const runRoutes = new Hono<ApiEnv>().post(
  "/run",
  operation({
    summary: "Stateless playground run of one stage; never contacts an upstream",
    ok: {
      "200": {
        description: "The outcome whenever the hook ran, including `ok: false` hook failures",
        schema: PlaygroundRunAnswer,
      },
    },
    problems: [422, 429],
  }),
  requireScope("hooks:write"),
  ...jsonBody(RunRequest),
  async (c) => {
    const body = c.req.valid("json");
    await chargeCompilation(c);
    const compiled = await compileToolAdapter({ source: body.source, config: body.config });
    if (!compiled.ok) {
      return problemResponse({
        code: "compile_failed",
        detail: compiled.error[0]?.message ?? "The hook does not compile.",
        extensions: { diagnostics: compiled.error },
      });
    }
    const adapter = compiled.value;
    const toolName = body.toolName ?? "playground";
    // The playground has no workspace or upstream: its identifiers say so.
    const run = await runAdapterStep({
      adapter,
      stage: body.stage,
      upstream: body.upstream ?? {},
      arguments: body.arguments,
      result: body.result,
      context: {
        calledAt: new Date().toISOString(),
        requestId: crypto.randomUUID(),
        workspaceUid: "playground",
        connectionId: "playground",
        toolUid: `playground:${toolName}`,
        toolName,
        config: adapter.config,
      },
    });
    return c.json(
      shaped(PlaygroundRunAnswer, {
        ...adapterRunAnswer(run),
        compiled: { hash: adapter.hash, compiledBytes: adapter.compiledBytes, stages: adapter.stages },
      }),
    );
  },
);
