import { Hono } from "hono";
import { z } from "zod";
import { problemResponse } from "../../../shared/http/problem";
import { compileToolAdapter } from "../compiler";
import { requireScope } from "../middleware/auth";
import { chargeCompilation } from "../middleware/quota";
import { jsonBody } from "../middleware/json-body";
import { operation } from "../openapi/describe";
import type { ApiEnv } from "../types";

const CompileRequest = z
  .object({
    source: z.string().describe("Tool adapter source (TypeScript)"),
    config: z.unknown().optional().describe("Non-secret JSON object the hook reads as context.config"),
  })
  .strict();

export const compileRoutes = new Hono<ApiEnv>().post(
  "/compile",
  operation({ summary: "Stateless compile of a tool adapter", problems: [422, 429] }),
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
    return c.json({ publicContract, compiledBytes, hash, stages });
  },
);
