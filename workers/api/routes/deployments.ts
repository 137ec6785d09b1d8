// Compile, deploy, roll back and reset one lifecycle target:
// `…/{compile,deployments,revisions,rollback,shadow,reset}` under the target's
// base path. Generic over a resolver like draftRoutes and versionRoutes: tool adapters
// (tool-console.ts, which adds `/test` and `/types`) and workspace files
// (files.ts, which adds its own `/test`) mount the same routes.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { readWorkspaceConfig } from "../../../shared/config";
import {
  createOrReuseRevision,
  deleteTargetRevisions,
  getRevision,
  listRevisions,
  type PluginToolDef,
} from "../../../shared/deploy/revisions";
import { parseFilePath } from "../../../shared/files/paths";
import { ProblemException } from "../../../shared/http/problem";
import { DEPLOY_CHANNELS } from "../../../shared/lifecycle/pointers";
import { deferRuns } from "../../../shared/logs";
import { isPluginTarget } from "../../../shared/plugins/call-plugins";
import { loadNamedCatalog } from "../../../shared/services/catalog";
import { notTested } from "../deploy/not-tested";
import { deleteTargetDeployHistory, isTested } from "../deploy/test-runs";
import { deleteTargetVersions, recordResetEvent } from "../lifecycle/versions";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { mapPage, pageOf, pageQuery, paginate } from "../middleware/page";
import {
  CompileSummaryAnswer,
  DeploymentAnswer,
  DropShadowAnswer,
  ResetAnswer,
  RevisionAnswer,
  RollbackAnswer,
} from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import { readPluginTools, toolReadRecords } from "../plugins/tool-definitions";
import {
  type CompiledRevision,
  compileVersion,
  type DeployResolver,
  type DeployTarget,
  deploymentsView,
  loadVersion,
  movePointer,
  pointerMoved,
} from "../targets";
import type { ApiEnv } from "../types";

const DeployRequest = z
  .object({ version: z.number().int().min(1), channel: z.enum(DEPLOY_CHANNELS) })
  .strict();

const RollbackRequest = z
  .object({ revision: z.string().min(1).max(64), channel: z.enum(DEPLOY_CHANNELS).default("active") })
  .strict();

const stubOf = (c: Context<ApiEnv>, t: { workspaceUid: string }) => workspaceObject(c.env, t.workspaceUid);

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
    .post(
      "/compile",
      operation({
        summary: "Compile the draft",
        ok: { "200": { description: "What the compile produced", schema: CompileSummaryAnswer } },
        problems: [404, 409, 422, 429],
      }),
      requireScope("hooks:write"),
      async (c) => {
        const t = await resolve(c);
        const { row, config } = await loadVersion(c, t);
        const compiled = await compileVersion(c, () => t.compile(row.source, config));
        return c.json(shaped(CompileSummaryAnswer, { version: row.number, ...compiled.summary }));
      },
    )

    .post(
      "/deployments",
      operation({
        summary: "Compile, require a test, create a revision and move the pointer",
        ok: {
          "201": { description: "A new revision", schema: DeploymentAnswer },
          "200": { description: "An identical revision reused", schema: DeploymentAnswer },
        },
        problems: [404, 409, 413, 422, 429],
      }),
      requireScope("hooks:write"),
      ...jsonBody(DeployRequest),
      async (c) => {
        const { version, channel } = c.req.valid("json");
        const t = await resolve(c);
        t.refuseDeploy("be deployed");
        const { head, row, config } = await loadVersion(c, t, version);
        if (!(await isTested(c.var.db, t.workspaceUid, t.target, head.generation, row.number))) {
          throw notTested(t.target, row.number);
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
        return c.json(
          shaped(DeploymentAnswer, { channel, reused, revision: t.revisionView(revision) }),
          reused ? 200 : 201,
        );
      },
    )

    .get(
      "/revisions",
      operation({
        summary: "Deployment revisions, newest first",
        ok: { "200": pageOf(RevisionAnswer) },
        problems: [404],
      }),
      requireScope("hooks:read"),
      pageQuery,
      async (c) => {
        const t = await resolve(c);
        const head = await stubOf(c, t).getHead(t.workspaceUid, t.target);
        const page = await paginate(
          c.req.valid("query"),
          (after, limit) =>
            listRevisions(c.env.DB, t.workspaceUid, t.target, head.generation, { limit, after }),
          (row) => row.id,
        );
        return c.json(mapPage(page, (row) => t.revisionView(row)));
      },
    )

    .post(
      "/rollback",
      operation({
        summary: "Move a pointer to an earlier compatible revision",
        ok: {
          "200": { description: "The channel and the revision it points at now", schema: RollbackAnswer },
        },
        problems: [404, 409, 413],
      }),
      requireScope("hooks:write"),
      ...jsonBody(RollbackRequest),
      async (c) => {
        const { revision: revisionId, channel } = c.req.valid("json");
        const t = await resolve(c);
        t.refuseDeploy("be rolled back");
        const head = await stubOf(c, t).getHead(t.workspaceUid, t.target);
        const revision = await getRevision(c.env.DB, t.workspaceUid, t.target, revisionId);
        if (!revision || revision.generation !== head.generation) {
          throw new ProblemException({
            code: "not_found",
            detail: `No revision ${revisionId} of this hook.`,
          });
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
        return c.json(shaped(RollbackAnswer, { channel, revision: t.revisionView(revision) }));
      },
    )

    .delete(
      "/shadow",
      operation({
        summary: "Drop the shadow pointer",
        ok: {
          "200": { description: "What shadow pointed at, and the deployments now", schema: DropShadowAnswer },
        },
        problems: [404],
      }),
      requireScope("hooks:write"),
      async (c) => {
        const t = await resolve(c);
        const { dropped, pointers } = await stubOf(c, t).dropPointer(t.target, "shadow");
        if (dropped) {
          await pointerMoved(c, t, {
            channel: "shadow",
            action: "drop",
            revisionId: null,
            previous: dropped,
          });
        }
        return c.json(
          shaped(DropShadowAnswer, {
            dropped: dropped?.revisionId ?? null,
            deployments: deploymentsView(pointers),
          }),
        );
      },
    )

    .post(
      "/reset",
      operation({
        summary: "Remove draft, versions and revisions; keep a reset event",
        ok: { "200": { description: "The reset event and the allowance released", schema: ResetAnswer } },
        problems: [404],
      }),
      // Browser users reset only as admins: it removes history nobody can restore.
      requireScope("hooks:write", { userRole: "admin" }),
      async (c) => {
        // Allowed on deleted and legacy services too: it is their only write.
        const t = await resolve(c);
        const reset = await stubOf(c, t).resetTarget(t.workspaceUid, t.target);
        const versionsRemoved = await deleteTargetVersions(
          c.var.db,
          t.workspaceUid,
          t.target,
          reset.generation,
        );
        const revisionsRemoved = await deleteTargetRevisions(c.env, t.workspaceUid, t.target);
        await deleteTargetDeployHistory(c.var.db, t.workspaceUid, t.target);
        const event = await recordResetEvent(c.var.db, {
          workspaceUid: t.workspaceUid,
          target: t.target,
          actor: c.get("principal").actor,
          at: new Date().toISOString(),
          versionsRemoved,
          revisionsRemoved,
        });
        c.header("etag", reset.head.etag);
        return c.json(
          shaped(ResetAnswer, {
            event,
            released: {
              draftHistoryBytes: reset.historyBytesReleased,
              deployedCodeBytes: reset.deployedCodeBytesReleased,
            },
          }),
        );
      },
    );
}
