import { Hono } from "hono";
import { z } from "zod";
import { problemResponse } from "../../../shared/http/problem";
import { compileToolAdapter } from "../compiler";
import { requireScope } from "../middleware/auth";
import { chargeCompilation } from "../middleware/quota";
import { jsonBody } from "../middleware/json-body";
import { operation, shaped } from "../openapi/describe";
import type { ApiEnv } from "../types";

const CompileRequest = z
  .object({
    source: z.string().describe("Tool adapter source (TypeScript)"),
    config: z.unknown().optional().describe("Non-secret JSON object the hook reads as context.config"),
  })
  .strict();

const CompileAnswer = z.object({
  publicContract: z.unknown().describe("The contract clients see (an object), or null"),
  compiledBytes: z.number().int(),
  hash: z.string(),
  stages: z.array(z.string()).describe("The stages the hook defines"),
});

export const compileRoutes = new Hono<ApiEnv>().post(
  "/compile",
  operation({
    summary: "Stateless compile of a tool adapter",
    ok: { "200": { description: "What the compile produced", schema: CompileAnswer } },
    problems: [422, 429],
  }),
  requireScope("hooks:write"),
  ...jsonBody(CompileRequest),
  async (c) => {
    const { source, config } = c.req.valid("json");
    await chargeCompilation(c);
    const compiled = await compileToolAdapter({ source, config });
    if (!compiled.ok) {
      return problemResponse({
        code: "compile_failed",
        detail: compiled.error[0]?.message ?? "The hook does not compile.",
        extensions: { diagnostics: compiled.error },
      });
    }
    const { publicContract, compiledBytes, hash, stages } = compiled.value;
    return c.json(shaped(CompileAnswer, { publicContract, compiledBytes, hash, stages }));
  },
);
