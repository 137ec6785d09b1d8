// `POST /v1/workspaces/{ws}/llm/prepare`: the LLM path's hooks for an agent
// that calls its provider itself (DESIGN §1 "Order on the LLM path"). It runs
// the request hook on a neutral request and answers the request to send; like
// the proxy it fails closed, so a failed hook never hands back the original.
import { Hono } from "hono";
import { z } from "zod";
import { readWorkspaceConfig } from "../../../shared/config";
import { LOOP_NAME_PATTERN, MAIN_LOOP } from "../../../shared/config/pre-llm-hook";
import { database } from "../../../shared/db/client";
import { ProblemException } from "../../../shared/http/problem";
import { relocate } from "../../../shared/llm/problems";
import { NeutralRequestSchema, validateNeutralRequest } from "../../../shared/llm/request";
import { requestHookRecord, runRequestHook } from "../../../shared/llm/request-hook";
import { deferRuns } from "../../../shared/logs";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import type { ApiEnv } from "../types";
import { requireWorkspace } from "./services";

/** The body as documented; `request` is checked by validateNeutralRequest (this schema plus pairing). */
export const PrepareRequest = z
  .object({
    loop: z
      .string()
      .regex(LOOP_NAME_PATTERN, "Loop names are 1–64 letters, digits, _, . or -.")
      .optional()
      .describe(`The calling loop: "${MAIN_LOOP}" (default) or an inner loop's name`),
    request: NeutralRequestSchema.describe("The neutral request (DESIGN §7 “LLM path”)"),
  })
  .strict();

// Two steps, so problems inside `request` (a missing one too) read like the
// proxy's: plain sentences, every path under /request, pairing checked too.
const PrepareEnvelope = PrepareRequest.extend({ request: z.unknown().optional() });

export const llmRoutes = new Hono<ApiEnv>().post(
  "/workspaces/:ws/llm/prepare",
  requireScope("tools:call"),
  ...jsonBody(PrepareEnvelope),
  async (c) => {
    const ws = c.req.param("ws");
    const body = c.req.valid("json");
    await requireWorkspace(database(c.env.DB), ws);
    const checked = validateNeutralRequest(body.request);
    if (!checked.ok) {
      throw new ProblemException({
        code: "invalid_request",
        detail: "The request is not a valid neutral request.",
        extensions: { errors: relocate(checked.error, new Map([["", "/request"]])) },
      });
    }
    const loop = body.loop ?? MAIN_LOOP;
    const requestId = crypto.randomUUID();
    c.header("x-rayrun-request-id", requestId);
    const outcome = await runRequestHook(
      c.env,
      { workspaceUid: ws, loop, request: checked.value, requestId },
      { env: c.env, workspaceUid: ws, requestId },
    );
    if (outcome.kind === "skipped") {
      return c.json({
        requestId,
        request: checked.value,
        hook: { ran: false, revisionId: null, path: null, function: null, durationMs: 0 },
      });
    }
    deferRuns(c.executionCtx, c.env, [requestHookRecord(ws, loop, requestId, outcome)], {
      payloadCapture: true,
      detailPolicy: (await readWorkspaceConfig(c.env.DB, ws)).detailPolicy,
    });
    if (outcome.kind === "failed") {
      throw new ProblemException({
        code: "request_hook_failed",
        detail: outcome.message,
        extensions: { hookCode: outcome.code, requestId },
        headers: { "x-rayrun-request-id": requestId },
      });
    }
    const { run } = outcome;
    return c.json({
      requestId,
      request: outcome.request,
      hook: {
        ran: true,
        revisionId: run.revisionId,
        path: run.path,
        function: run.exportName,
        durationMs: run.durationMs,
      },
    });
  },
);
