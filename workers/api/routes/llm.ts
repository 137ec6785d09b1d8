// `POST /v1/workspaces/{ws}/llm/prepare`: the LLM path's hooks for an agent
// that calls its provider itself. It runs
// the request hook on a neutral request, then plugins' chat.params (fail open),
// and answers the request to send; like the proxy the request hook fails
// closed, so a failed hook never hands back the original.
import { Hono } from "hono";
import { z } from "zod";
import { LeaseUnavailable } from "../../../shared/lease/view";
import { LOOP_NAME_PATTERN, MAIN_LOOP } from "../../../shared/config/pre-llm-hook";
import { ProblemException } from "../../../shared/http/problem";
import { relocate } from "../../../shared/llm/problems";
import { NeutralRequestSchema, validateNeutralRequest } from "../../../shared/llm/request";
import { llmCallState } from "../../../shared/llm/call-view";
import { runRequestHook } from "../../../shared/llm/request-hook";
import { requestHookRecords } from "../../../shared/llm/request-hook-records";
import { APPROVAL_HEADER, APPROVAL_ID, APPROVAL_ID_REFUSAL } from "../../../shared/llm/host-approvals";
import { turnErrorProblem } from "../../../shared/llm/turn-error";
import { runChatParams } from "../../../shared/plugins/chat-params";
import { deferRuns } from "../../../shared/logs";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

/** The body as documented; `request` is checked by validateNeutralRequest (this schema plus pairing). */
const PrepareRequest = z
  .object({
    loop: z
      .string()
      .regex(LOOP_NAME_PATTERN, "Loop names are 1–64 letters, digits, _, . or -.")
      .optional()
      .describe(`The calling loop: "${MAIN_LOOP}" (default) or an inner loop's name`),
    request: NeutralRequestSchema.describe("The neutral request"),
  })
  .strict();

// Two steps, so problems inside `request` (a missing one too) read like the
// proxy's: plain sentences, every path under /request, pairing checked too.
const PrepareEnvelope = PrepareRequest.extend({ request: z.unknown().optional() });

const PreparedAnswer = z.object({
  requestId: z.string(),
  request: z.record(z.string(), z.unknown()).describe("The neutral request to send, after the hooks"),
  hook: z.object({
    ran: z.boolean(),
    revisionId: z.string().nullable(),
    path: z.string().nullable().describe("The workspace file that ran"),
    function: z.string().nullable(),
    durationMs: z.number(),
  }),
});

export const llmRoutes = new Hono<ApiEnv>().post(
  "/workspaces/:ws/llm/prepare",
  operation({
    summary: "Run the LLM path's hooks on a neutral request and return the request to send",
    ok: { "200": { description: "The request to send, and what the hook did", schema: PreparedAnswer } },
    problems: [404, 422],
    headers: [
      {
        name: APPROVAL_HEADER,
        description:
          "The approval a repeated request carries: the request hook's host call it approved runs once (docs/request-hooks.md)",
      },
    ],
  }),
  requireScope("tools:call"),
  ...jsonBody(PrepareEnvelope, { describedAs: PrepareRequest }),
  async (c) => {
    const ws = c.req.param("ws");
    const body = c.req.valid("json");
    await requireWorkspace(c.var.db, ws);
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
    const principal = c.get("principal");
    const approvalId = c.req.header(APPROVAL_HEADER) ?? null;
    if (approvalId !== null && !APPROVAL_ID.test(approvalId)) {
      throw new ProblemException({ code: "invalid_request", detail: APPROVAL_ID_REFUSAL });
    }
    // Decided on the isolate's lease, as on the proxy: the config at the lease's
    // catalog version, the hook's pointers and the plugin list (the key was
    // checked by the auth middleware).
    let state;
    try {
      state = await llmCallState(c.env, ws, { loop, keyId: null, bypass: false });
    } catch (error) {
      if (error instanceof LeaseUnavailable) {
        throw new ProblemException({
          code: "workspace_unavailable",
          detail: "The workspace's current deployments could not be confirmed; nothing ran. Retry shortly.",
        });
      }
      throw error;
    }
    const { config } = state;
    const [outcome, plugins] = await Promise.all([
      runRequestHook(
        c.env,
        {
          workspaceUid: ws,
          loop,
          request: checked.value,
          requestId,
          config: Promise.resolve(config),
          signal: c.req.raw.signal,
          ...(state.hookPointers === null ? {} : { pointers: state.hookPointers }),
          caller: { keyId: principal.keyId, actor: principal.actor, approvalId },
        },
        { env: c.env, workspaceUid: ws, requestId },
      ),
      state.plugins(),
    ]);
    const capture = { payloadCapture: true, detailPolicy: config.detailPolicy };
    if (outcome.kind !== "skipped") {
      deferRuns(c.executionCtx, c.env, requestHookRecords(ws, loop, requestId, outcome), capture);
    }
    if (outcome.kind === "failed") {
      const problem = turnErrorProblem(outcome);
      throw new ProblemException({
        ...problem,
        extensions: { ...problem.extensions, requestId },
        headers: { ...problem.headers, "x-rayrun-request-id": requestId },
      });
    }
    // Plugins' chat.params (fail open); the agent's provider is not known here.
    const chat = await runChatParams(c.env, {
      workspaceUid: ws,
      requestId,
      request: outcome.kind === "transformed" ? outcome.request : checked.value,
      plugins,
      provider: null,
      config,
    });
    deferRuns(c.executionCtx, c.env, chat.records, capture);
    const run = outcome.kind === "transformed" ? outcome.run : null;
    return c.json(
      shaped(PreparedAnswer, {
        requestId,
        request: chat.request,
        hook:
          run === null
            ? { ran: false, revisionId: null, path: null, function: null, durationMs: 0 }
            : {
                ran: true,
                revisionId: run.revisionId,
                path: run.path,
                function: run.exportName,
                durationMs: run.durationMs,
              },
      }),
    );
  },
);
