// Compile, test, deploy, roll back and reset one tool's adapter:
// `…/tools/{tool}/hook/{compile,test,types,deployments,revisions,rollback,shadow,reset}`.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../shared/db/client";
import { hookPointerEvents } from "../../../shared/db/schema-deploy";
import {
  createOrReuseRevision,
  deleteTargetRevisions,
  getRevision,
  listRevisions,
  revisionView,
} from "../../../shared/deploy/revisions";
import { deleteTargetDeployHistory, isTested, recordTestRun } from "../../../shared/deploy/test-runs";
import { generateAdapterTypes } from "../../../shared/hooks";
import { ProblemException } from "../../../shared/http/problem";
import { newId } from "../../../shared/ids";
import type { JsonObject } from "../../../shared/json";
import { parseConfig } from "../../../shared/lifecycle/draft";
import { DEPLOY_CHANNELS, type DeployChannel, type Pointer } from "../../../shared/lifecycle/pointers";
import { toolTarget } from "../../../shared/lifecycle/target";
import { deleteTargetVersions, getVersion, recordResetEvent } from "../../../shared/lifecycle/versions";
import { runAdapterStep } from "../../../shared/pipeline/adapter-steps";
import { findTool } from "../../../shared/services/store";
import { compileToolAdapter } from "../compiler";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { pageQuery } from "../middleware/page";
import { chargeCompilation } from "../middleware/quota";
import type { ApiEnv } from "../types";
import { pointerView } from "./hooks";
import { refuseDeleted, requireWorkspace } from "./services";

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

export const DeployRequest = z
  .object({ version: z.number().int().min(1), channel: z.enum(DEPLOY_CHANNELS) })
  .strict();

export const RollbackRequest = z
  .object({ revision: z.string().min(1).max(64), channel: z.enum(DEPLOY_CHANNELS).default("active") })
  .strict();

/** The tool, its service and the lifecycle state its routes act on. */
async function toolHook(c: Context<ApiEnv>) {
  const ws = c.req.param("ws") ?? "";
  const toolUid = c.req.param("tool") ?? "";
  const db = database(c.env.DB);
  await requireWorkspace(db, ws);
  const found = await findTool(db, ws, toolUid);
  if (!found)
    throw new ProblemException({ code: "not_found", detail: `No tool ${toolUid} in this workspace.` });
  const target = toolTarget(toolUid);
  const stub = c.env.WORKSPACE.getByName(ws);
  return { ws, target, stub, ...found };
}

type ToolHook = Awaited<ReturnType<typeof toolHook>>;

/** Refuses changes to the live deployment of a tool whose service is gone or whose definition awaits review. */
function refuseDeploy(h: ToolHook, action: string) {
  refuseDeleted(h.service, action);
  if (h.tool.removedAt !== null) {
    throw new ProblemException({
      code: "conflict",
      detail: `The upstream no longer offers this tool; it cannot ${action}.`,
    });
  }
}

/** A stored version of the current generation (the draft's when `version` is absent). */
async function loadVersion(c: Context<ApiEnv>, h: ToolHook, version?: number) {
  const head = await h.stub.getHead(h.ws, h.target);
  const number = version ?? head.version;
  if (number === 0) {
    throw new ProblemException({ code: "conflict", detail: "Nothing is saved yet: save a draft first." });
  }
  const row =
    number > head.version ? null : await getVersion(c.env.DB, h.ws, h.target, head.generation, number);
  if (!row) throw new ProblemException({ code: "not_found", detail: `Version ${number} does not exist.` });
  return { head, row, config: parseConfig(row.config) };
}

async function compileVersion(c: Context<ApiEnv>, source: string, config: JsonObject) {
  await chargeCompilation(c);
  const compiled = await compileToolAdapter({ source, config });
  if (!compiled.ok) {
    throw new ProblemException({
      code: "compile_failed",
      detail: compiled.error[0]?.message ?? "The hook does not compile.",
      extensions: { diagnostics: compiled.error },
    });
  }
  return compiled.value;
}

async function recordPointerEvent(
  c: Context<ApiEnv>,
  h: ToolHook,
  event: {
    channel: DeployChannel;
    action: "deploy" | "rollback" | "drop";
    revisionId: string | null;
    previous: Pointer | null;
  },
) {
  await database(c.env.DB)
    .insert(hookPointerEvents)
    .values({
      id: newId("ptr"),
      workspaceUid: h.ws,
      target: h.target,
      channel: event.channel,
      action: event.action,
      revisionId: event.revisionId,
      previousRevisionId: event.previous?.revisionId ?? null,
      actor: c.get("principal").actor,
      at: new Date().toISOString(),
    });
}

/** Moves a pointer in the WorkspaceObject, which refuses it past the deployed-code allowance. */
async function movePointer(
  c: Context<ApiEnv>,
  h: ToolHook,
  channel: DeployChannel,
  revisionId: string,
  bytes: number,
) {
  const moved = await h.stub.setPointer(h.target, channel, revisionId, bytes, Date.now());
  if (!moved.ok) {
    throw new ProblemException({
      code: "allowance_exceeded",
      detail: `Active and shadow code of the workspace would exceed ${moved.refusal.limit} bytes; drop a shadow or reset a hook.`,
      extensions: { ...moved.refusal },
    });
  }
  return moved;
}

export const deploymentRoutes = new Hono<ApiEnv>()
  .post(`${HOOK}/compile`, requireScope("hooks:write"), async (c) => {
    const h = await toolHook(c);
    const { row, config } = await loadVersion(c, h);
    const compiled = await compileVersion(c, row.source, config);
    const { publicContract, compiledBytes, hash, stages } = compiled;
    return c.json({ version: row.number, publicContract, compiledBytes, hash, stages });
  })

  .get(`${HOOK}/types`, requireScope("hooks:read"), async (c) => {
    const h = await toolHook(c);
    const declarations = generateAdapterTypes({
      inputSchema: h.tool.inputSchema,
      outputSchema: h.tool.outputSchema ?? undefined,
      toolName: h.tool.publicName ?? h.tool.upstreamName,
    });
    return c.body(declarations, 200, { "content-type": "application/typescript; charset=utf-8" });
  })

  .post(`${HOOK}/test`, requireScope("hooks:write"), ...jsonBody(TestRequest), async (c) => {
    const body = c.req.valid("json");
    const h = await toolHook(c);
    const { head, row, config } = await loadVersion(c, h, body.version);
    const adapter = await compileVersion(c, row.source, config);
    const principal = c.get("principal");
    // The tool's real context values; the upstream is never contacted (after uses the mock result).
    const run = await runAdapterStep({
      adapter,
      stage: body.stage,
      upstream: {
        inputSchema: h.tool.inputSchema as JsonObject,
        ...(h.tool.outputSchema ? { outputSchema: h.tool.outputSchema as JsonObject } : {}),
      },
      ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
      ...(body.result === undefined ? {} : { result: body.result }),
      context: {
        calledAt: new Date().toISOString(),
        requestId: crypto.randomUUID(),
        workspaceUid: h.ws,
        connectionId: h.service.uid,
        toolUid: h.tool.uid,
        toolName: h.tool.publicName ?? h.tool.upstreamName,
        config,
      },
    });
    const id = await recordTestRun(c.env.DB, {
      workspaceUid: h.ws,
      target: h.target,
      generation: head.generation,
      version: row.number,
      input: {
        ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
        ...(body.result === undefined ? {} : { result: body.result }),
      },
      run,
      actor: principal.actor,
      keyId: principal.keyId,
    });
    return c.json({ id, version: row.number, ...run });
  })

  .post(`${HOOK}/deployments`, requireScope("hooks:write"), ...jsonBody(DeployRequest), async (c) => {
    const { version, channel } = c.req.valid("json");
    const h = await toolHook(c);
    refuseDeploy(h, "be deployed");
    const { head, row, config } = await loadVersion(c, h, version);
    if (!(await isTested(c.env.DB, h.ws, h.target, head.generation, row.number))) {
      throw new ProblemException({
        code: "not_tested",
        detail: `Version ${row.number} has no successful test run; run POST …/hook/test with version ${row.number} first.`,
        extensions: { version: row.number },
      });
    }
    const compiled = await compileVersion(c, row.source, config);
    const principal = c.get("principal");
    const { revision, reused } = await createOrReuseRevision(c.env, {
      workspaceUid: h.ws,
      target: h.target,
      generation: head.generation,
      version: row.number,
      code: compiled.code,
      codeHash: compiled.hash,
      publicContract: compiled.publicContract as JsonObject | null,
      stages: compiled.stages,
      config: compiled.config,
      definitionHash: h.tool.definitionHash,
      actor: principal.actor,
      keyId: principal.keyId,
    });
    const moved = await movePointer(c, h, channel, revision.id, revision.compiledBytes);
    await recordPointerEvent(c, h, {
      channel,
      action: "deploy",
      revisionId: revision.id,
      previous: moved.previous,
    });
    return c.json({ channel, reused, revision: revisionView(revision) }, reused ? 200 : 201);
  })

  .get(`${HOOK}/revisions`, requireScope("hooks:read"), pageQuery, async (c) => {
    const h = await toolHook(c);
    const { limit, cursor } = c.req.valid("query");
    const head = await h.stub.getHead(h.ws, h.target);
    const rows = await listRevisions(c.env.DB, h.ws, h.target, head.generation, { limit, cursor });
    const items = rows.slice(0, limit).map(revisionView);
    return c.json({ items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null });
  })

  .post(`${HOOK}/rollback`, requireScope("hooks:write"), ...jsonBody(RollbackRequest), async (c) => {
    const { revision: revisionId, channel } = c.req.valid("json");
    const h = await toolHook(c);
    refuseDeploy(h, "be rolled back");
    const head = await h.stub.getHead(h.ws, h.target);
    const revision = await getRevision(c.env.DB, h.ws, h.target, revisionId);
    if (!revision || revision.generation !== head.generation) {
      throw new ProblemException({ code: "not_found", detail: `No revision ${revisionId} of this hook.` });
    }
    // Only code compiled against the tool's current upstream definition may serve it.
    if (revision.definitionHash !== h.tool.definitionHash) {
      throw new ProblemException({
        code: "incompatible_revision",
        detail: "The revision was compiled against an earlier upstream definition of the tool.",
        extensions: {
          revision: revision.id,
          compiledAgainst: revision.definitionHash,
          currentDefinition: h.tool.definitionHash,
        },
      });
    }
    const moved = await movePointer(c, h, channel, revision.id, revision.compiledBytes);
    await recordPointerEvent(c, h, {
      channel,
      action: "rollback",
      revisionId: revision.id,
      previous: moved.previous,
    });
    return c.json({ channel, revision: revisionView(revision) });
  })

  .delete(`${HOOK}/shadow`, requireScope("hooks:write"), async (c) => {
    const h = await toolHook(c);
    const { dropped, pointers } = await h.stub.dropPointer(h.target, "shadow");
    if (dropped)
      await recordPointerEvent(c, h, {
        channel: "shadow",
        action: "drop",
        revisionId: null,
        previous: dropped,
      });
    return c.json({
      dropped: dropped?.revisionId ?? null,
      deployments: { active: pointerView(pointers.active), shadow: pointerView(pointers.shadow) },
    });
  })

  .post(`${HOOK}/reset`, requireScope("hooks:write"), async (c) => {
    // Allowed on deleted and legacy services too: it is their only write.
    const h = await toolHook(c);
    const reset = await h.stub.resetTarget(h.ws, h.target);
    const versionsRemoved = await deleteTargetVersions(c.env.DB, h.ws, h.target, reset.generation);
    const revisionsRemoved = await deleteTargetRevisions(c.env, h.ws, h.target);
    await deleteTargetDeployHistory(c.env.DB, h.ws, h.target);
    const event = await recordResetEvent(c.env.DB, {
      workspaceUid: h.ws,
      target: h.target,
      actor: c.get("principal").actor,
      at: new Date().toISOString(),
      versionsRemoved,
      revisionsRemoved,
    });
    c.header("etag", reset.head.etag);
    return c.json({
      event,
      released: {
        draftHistoryBytes: reset.historyBytesReleased,
        deployedCodeBytes: reset.deployedCodeBytesReleased,
      },
    });
  });
