// Compile, deploy, roll back and reset one lifecycle target:
// `…/{compile,deployments,revisions,rollback,shadow,reset}` under the target's
// base path. Generic over a resolver like lifecycleRoutes: tool adapters
// (tool-deployments.ts, which adds `/test` and `/types`) and workspace files
// (files.ts, which adds its own `/test`) mount the same routes.
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
  type RevisionRow,
} from "../../../shared/deploy/revisions";
import { deleteTargetDeployHistory, isTested } from "../../../shared/deploy/test-runs";
import { ProblemException } from "../../../shared/http/problem";
import { newId } from "../../../shared/ids";
import type { JsonObject } from "../../../shared/json";
import { parseConfig } from "../../../shared/lifecycle/draft";
import { DEPLOY_CHANNELS, type DeployChannel, type Pointer } from "../../../shared/lifecycle/pointers";
import type { Target } from "../../../shared/lifecycle/target";
import { deleteTargetVersions, getVersion, recordResetEvent } from "../../../shared/lifecycle/versions";
import type { Result } from "../../../shared/result";
import type { AdapterStage } from "../../../shared/sandbox/types";
import type { Diagnostic } from "../compiler";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { pageQuery } from "../middleware/page";
import { chargeCompilation } from "../middleware/quota";
import type { ApiEnv } from "../types";
import { parseFilePath } from "../../../shared/files/paths";
import { readWorkspaceConfig } from "../../../shared/config";
import { deferRuns } from "../../../shared/logs";
import { loadNamedCatalog } from "../../../shared/pipeline/catalog";
import { isPluginTarget } from "../../../shared/plugins/call-plugins";
import { readPluginTools, toolReadRecords } from "../../../shared/plugins/tool-definitions";
import type { PluginToolDef } from "../../../shared/deploy/revisions";
import { pointerView, type ResolvedTarget } from "./hooks";

export const DeployRequest = z
  .object({ version: z.number().int().min(1), channel: z.enum(DEPLOY_CHANNELS) })
  .strict();

export const RollbackRequest = z
  .object({ revision: z.string().min(1).max(64), channel: z.enum(DEPLOY_CHANNELS).default("active") })
  .strict();

/** What compiling a version yields: everything its revision stores, and the compile route's answer. */
export interface CompiledRevision {
  code: string;
  hash: string;
  compiledBytes: number;
  config: JsonObject;
  publicContract: JsonObject | null;
  stages: AdapterStage[];
  /** Workspace files: exported functions or plugin hooks; null for tool adapters. */
  exports: string[] | null;
  /** What `POST …/compile` answers besides `version`. */
  summary: object;
}

/** A lifecycle target as the deployment routes see it: its kind's compiler and rules. */
export interface DeployTarget extends ResolvedTarget {
  compile(source: string, config: JsonObject): Promise<Result<CompiledRevision, Diagnostic[]>>;
  /** The upstream definition a revision is compiled against; "" for targets without one. */
  definitionHash: string;
  /** Throws the problem that refuses moving this target's pointers, or does nothing. */
  refuseDeploy(action: string): void;
  /** A revision as the routes answer it. */
  revisionView(row: RevisionRow): object;
}

type DeployResolver = (c: Context<ApiEnv>) => Promise<DeployTarget>;

const stubOf = (c: Context<ApiEnv>, t: { workspaceUid: string }) => c.env.WORKSPACE.getByName(t.workspaceUid);

/** A stored version of the current generation (the draft's when `version` is absent). */
export async function loadVersion(
  c: Context<ApiEnv>,
  t: { workspaceUid: string; target: Target },
  version?: number,
) {
  const head = await stubOf(c, t).getHead(t.workspaceUid, t.target);
  const number = version ?? head.version;
  if (number === 0) {
    throw new ProblemException({ code: "conflict", detail: "Nothing is saved yet: save a draft first." });
  }
  const row =
    number > head.version
      ? null
      : await getVersion(c.env.DB, t.workspaceUid, t.target, head.generation, number);
  if (!row) throw new ProblemException({ code: "not_found", detail: `Version ${number} does not exist.` });
  return { head, row, config: parseConfig(row.config) };
}

/** Charges the caller's compilation quota (attempts count), then compiles; diagnostics answer 422. */
export async function compileVersion<T>(
  c: Context<ApiEnv>,
  compile: () => Promise<Result<T, Diagnostic[]>>,
): Promise<T> {
  await chargeCompilation(c);
  const compiled = await compile();
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
  t: DeployTarget,
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
      workspaceUid: t.workspaceUid,
      target: t.target,
      channel: event.channel,
      action: event.action,
      revisionId: event.revisionId,
      previousRevisionId: event.previous?.revisionId ?? null,
      actor: c.get("principal").actor,
      at: new Date().toISOString(),
    });
}

/**
 * Points `channel` at a revision (deploy or rollback): the WorkspaceObject moves
 * the pointer, refusing it past the deployed-code allowance; then the move goes
 * into the pointer history, and a plugin's move bumps the catalog version.
 */
async function movePointer(
  c: Context<ApiEnv>,
  t: DeployTarget,
  channel: DeployChannel,
  revision: { id: string; compiledBytes: number; generation: number },
  action: "deploy" | "rollback",
): Promise<void> {
  const moved = await stubOf(c, t).setPointer(
    t.target,
    channel,
    revision.id,
    revision.compiledBytes,
    Date.now(),
    revision.generation,
  );
  if (!moved.ok && "reset" in moved) {
    throw new ProblemException({
      code: "conflict",
      detail: `The hook was reset while this ${action} ran; nothing was ${action === "deploy" ? "deployed" : "rolled back"}. Save, test and deploy again.`,
      extensions: { generation: moved.reset.generation },
    });
  }
  if (!moved.ok) {
    throw new ProblemException({
      code: "allowance_exceeded",
      detail: `Active and shadow code of the workspace would exceed ${moved.refusal.limit} bytes; drop a shadow or reset a hook.`,
      extensions: { ...moved.refusal },
    });
  }
  await recordPointerEvent(c, t, { channel, action, revisionId: revision.id, previous: moved.previous });
  await pluginsChanged(c, t);
}

/**
 * A plugin's pointers decide what runs on the tool-call path, whose isolates
 * cache the plugin list by catalog version: every move of one bumps it.
 */
async function pluginsChanged(c: Context<ApiEnv>, t: { workspaceUid: string; target: string }) {
  if (isPluginTarget(t.target)) await stubOf(c, t).catalogChanged();
}

/**
 * A plugin with a `tool` hook: `tool({})` once, in a fresh sandbox, at deploy
 * time. A throw or a non-array gives
 * zero tools and the plugin still deploys; refused definitions are dropped.
 * Everything refused is logged (kind plugin, stage "tool").
 */
async function pluginTools(
  c: Context<ApiEnv>,
  t: DeployTarget,
  compiled: CompiledRevision,
): Promise<{ tools: PluginToolDef[] | null; log: (revisionId: string) => Promise<void> }> {
  if (!isPluginTarget(t.target) || !(compiled.exports ?? []).includes("tool"))
    return { tools: null, log: async () => undefined };
  const path = t.target.slice("file:".length);
  const parsed = parseFilePath(path);
  const plugin = parsed.ok ? parsed.value.name : path;
  const catalog = await loadNamedCatalog(c.env.DB, t.workspaceUid, "default");
  const indexed = new Set(catalog.tools.map(({ tool }) => tool.publicName ?? tool.upstreamName));
  const requestId = crypto.randomUUID();
  const read = await readPluginTools(compiled.code, indexed, requestId);
  const log = async (revisionId: string) => {
    const records = toolReadRecords(read, {
      workspaceUid: t.workspaceUid,
      target: t.target,
      plugin,
      requestId,
      revisionId,
    });
    if (records.length === 0) return;
    for (const record of records) console.warn(record.details?.message ?? "plugin: tool hook", { plugin });
    const { detailPolicy } = await readWorkspaceConfig(c.env.DB, t.workspaceUid);
    deferRuns(c.executionCtx, c.env, records, { payloadCapture: true, detailPolicy });
  };
  return { tools: read.tools, log };
}

/** The compile/deploy/rollback/reset routes for one kind of target, mounted under its base path. */
export function deploymentRoutes(resolve: DeployResolver) {
  return new Hono<ApiEnv>()
    .post("/compile", requireScope("hooks:write"), async (c) => {
      const t = await resolve(c);
      const { row, config } = await loadVersion(c, t);
      const compiled = await compileVersion(c, () => t.compile(row.source, config));
      return c.json({ version: row.number, ...compiled.summary });
    })

    .post("/deployments", requireScope("hooks:write"), ...jsonBody(DeployRequest), async (c) => {
      const { version, channel } = c.req.valid("json");
      const t = await resolve(c);
      t.refuseDeploy("be deployed");
      const { head, row, config } = await loadVersion(c, t, version);
      if (!(await isTested(c.env.DB, t.workspaceUid, t.target, head.generation, row.number))) {
        throw new ProblemException({
          code: "not_tested",
          detail: `Version ${row.number} has no successful test run; run POST …/test with version ${row.number} first.`,
          extensions: { version: row.number },
        });
      }
      const compiled = await compileVersion(c, () => t.compile(row.source, config));
      const { tools, log } = await pluginTools(c, t, compiled);
      const principal = c.get("principal");
      const { revision, reused } = await createOrReuseRevision(c.env, {
        workspaceUid: t.workspaceUid,
        target: t.target,
        generation: head.generation,
        version: row.number,
        code: compiled.code,
        codeHash: compiled.hash,
        publicContract: compiled.publicContract,
        stages: compiled.stages,
        exports: compiled.exports,
        tools,
        config: compiled.config,
        definitionHash: t.definitionHash,
        actor: principal.actor,
        keyId: principal.keyId,
      });
      await movePointer(c, t, channel, revision, "deploy");
      await log(revision.id);
      return c.json({ channel, reused, revision: t.revisionView(revision) }, reused ? 200 : 201);
    })

    .get("/revisions", requireScope("hooks:read"), pageQuery, async (c) => {
      const t = await resolve(c);
      const { limit, cursor } = c.req.valid("query");
      const head = await stubOf(c, t).getHead(t.workspaceUid, t.target);
      const rows = await listRevisions(c.env.DB, t.workspaceUid, t.target, head.generation, {
        limit,
        cursor,
      });
      const page = rows.slice(0, limit);
      return c.json({
        items: page.map((row) => t.revisionView(row)),
        nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      });
    })

    .post("/rollback", requireScope("hooks:write"), ...jsonBody(RollbackRequest), async (c) => {
      const { revision: revisionId, channel } = c.req.valid("json");
      const t = await resolve(c);
      t.refuseDeploy("be rolled back");
      const head = await stubOf(c, t).getHead(t.workspaceUid, t.target);
      const revision = await getRevision(c.env.DB, t.workspaceUid, t.target, revisionId);
      if (!revision || revision.generation !== head.generation) {
        throw new ProblemException({ code: "not_found", detail: `No revision ${revisionId} of this hook.` });
      }
      // Only code compiled against the tool's current upstream definition may serve it.
      if (revision.definitionHash !== t.definitionHash) {
        throw new ProblemException({
          code: "incompatible_revision",
          detail: "The revision was compiled against an earlier upstream definition of the tool.",
          extensions: {
            revision: revision.id,
            compiledAgainst: revision.definitionHash,
            currentDefinition: t.definitionHash,
          },
        });
      }
      await movePointer(c, t, channel, revision, "rollback");
      return c.json({ channel, revision: t.revisionView(revision) });
    })

    .delete("/shadow", requireScope("hooks:write"), async (c) => {
      const t = await resolve(c);
      const { dropped, pointers } = await stubOf(c, t).dropPointer(t.target, "shadow");
      if (dropped) {
        await recordPointerEvent(c, t, {
          channel: "shadow",
          action: "drop",
          revisionId: null,
          previous: dropped,
        });
      }
      return c.json({
        dropped: dropped?.revisionId ?? null,
        deployments: { active: pointerView(pointers.active), shadow: pointerView(pointers.shadow) },
      });
    })

    .post("/reset", requireScope("hooks:write"), async (c) => {
      // Allowed on deleted and legacy services too: it is their only write.
      const t = await resolve(c);
      const reset = await stubOf(c, t).resetTarget(t.workspaceUid, t.target);
      await pluginsChanged(c, t);
      const versionsRemoved = await deleteTargetVersions(
        c.env.DB,
        t.workspaceUid,
        t.target,
        reset.generation,
      );
      const revisionsRemoved = await deleteTargetRevisions(c.env, t.workspaceUid, t.target);
      await deleteTargetDeployHistory(c.env.DB, t.workspaceUid, t.target);
      const event = await recordResetEvent(c.env.DB, {
        workspaceUid: t.workspaceUid,
        target: t.target,
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
}
