// The version history of a lifecycle target: `{base}/versions` (newest
// first), one version, its diff against its predecessor, whether it may be
// deployed (a passing test run), and `{base}/export` (every version as one
// streamed JSON document). Generic over a resolver like
// the draft routes (drafts.ts), and mounted beside them by app.ts.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { Hono } from "hono";
import { z } from "zod";
import { lastPassingRun } from "../deploy/test-runs";
import { diffVersions } from "../lifecycle/diff";
import { parseConfig } from "../lifecycle/draft";
import { getVersion, listVersions, versionsAfter, versionView } from "../lifecycle/versions";
import { requireScope } from "../middleware/auth";
import { pageOf, pageQuery, paginate } from "../middleware/page";
import { KNOBS } from "../../../shared/knobs";
import { ExportAnswer, VersionAnswer, VersionDiffAnswer, VersionMetaAnswer } from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import { isVersionNumber, type Resolver, requireVersion, versionParam } from "../targets";
import type { ApiEnv } from "../types";

const TestStatusAnswer = z.object({
  version: z.number().int(),
  tested: z
    .boolean()
    .describe("Whether a passing test run of this version is stored: deploying it is allowed"),
  lastPassingRun: z
    .object({
      id: z.string().describe("The test run's id"),
      at: z.string(),
      stage: z.string().describe("What ran: an adapter stage, a lib export or a plugin hook"),
      actor: z.string(),
    })
    .nullable()
    .describe("The newest passing test run of the version; null while it has none"),
});

/** The version routes for one kind of target, mounted under its base path (`…/hook`, `…/files/{path}`). */
export function versionRoutes(resolve: Resolver) {
  return new Hono<ApiEnv>()
    .get(
      "/versions",
      operation({
        summary: "Draft history, newest first",
        ok: { "200": pageOf(VersionMetaAnswer) },
        problems: [404],
      }),
      requireScope("hooks:read"),
      pageQuery,
      async (c) => {
        const t = await resolve(c);
        const head = await workspaceObject(c.env, t.workspaceUid).getHead(t.workspaceUid, t.target);
        const page = await paginate(
          c.req.valid("query"),
          (after, limit) =>
            listVersions(c.var.db, {
              workspaceUid: t.workspaceUid,
              target: t.target,
              generation: head.generation,
              limit,
              ...(after === undefined ? {} : { before: Number(after) }),
            }),
          (row) => String(row.version),
          isVersionNumber,
        );
        return c.json(shaped(pageOf(VersionMetaAnswer).schema, page));
      },
    )
    .get(
      "/versions/:n",
      operation({
        summary: "One version with source and config",
        ok: { "200": { description: "The version", schema: VersionAnswer } },
        problems: [400, 404],
      }),
      requireScope("hooks:read"),
      async (c) => {
        const t = await resolve(c);
        const { row } = await requireVersion(c, t, versionParam(c));
        return c.json(shaped(VersionAnswer, versionView(row)));
      },
    )
    .get(
      "/versions/:n/test-status",
      operation({
        summary: "Whether a version has a passing test run, so it may be deployed",
        ok: { "200": { description: "The version's test status", schema: TestStatusAnswer } },
        problems: [400, 404],
      }),
      requireScope("hooks:read"),
      async (c) => {
        const t = await resolve(c);
        const { head, row } = await requireVersion(c, t, versionParam(c));
        const run = await lastPassingRun(c.var.db, t.workspaceUid, t.target, head.generation, row.number);
        return c.json(
          shaped(TestStatusAnswer, {
            version: row.number,
            tested: run !== undefined,
            lastPassingRun: run ?? null,
          }),
        );
      },
    )
    .get(
      "/versions/:n/diff",
      operation({
        summary: "Unified diff of a version against its predecessor",
        ok: { "200": { description: "The diffs of source and config", schema: VersionDiffAnswer } },
        problems: [400, 404],
      }),
      requireScope("hooks:read"),
      async (c) => {
        const t = await resolve(c);
        const { head, row } = await requireVersion(c, t, versionParam(c));
        const previous =
          row.number === 1
            ? null
            : await getVersion(c.var.db, t.workspaceUid, t.target, head.generation, row.number - 1);
        if (row.number > 1 && !previous)
          throw new Error(`version ${row.number - 1} of ${t.target} is missing`);
        const before = previous
          ? {
              version: previous.number,
              source: previous.source,
              config: parseConfig(previous.config),
            }
          : { version: 0, source: "", config: {} };
        const after = { version: row.number, source: row.source, config: parseConfig(row.config) };
        return c.json(shaped(VersionDiffAnswer, diffVersions(before, after)));
      },
    )
    .get(
      "/export",
      operation({
        summary: "All versions as one JSON document",
        ok: { "200": { description: "The export, streamed", schema: ExportAnswer } },
        problems: [404],
      }),
      requireScope("hooks:read"),
      async (c) => {
        const t = await resolve(c);
        const head = await workspaceObject(c.env, t.workspaceUid).getHead(t.workspaceUid, t.target);
        const db = c.var.db;
        const header = {
          format: "rayrun.hooks/export-v1",
          workspaceUid: t.workspaceUid,
          target: t.target,
          generation: head.generation,
          draft: { version: head.version, etag: head.etag },
          exportedAt: new Date().toISOString(),
        };
        const encoder = new TextEncoder();
        let after = 0;
        let first = true;
        // Streamed page by page: a history may approach the 64 MiB allowance.
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const open = JSON.stringify(header);
            controller.enqueue(encoder.encode(`${open.slice(0, -1)},"versions":[`));
          },
          async pull(controller) {
            const rows = await versionsAfter(db, {
              workspaceUid: t.workspaceUid,
              target: t.target,
              generation: head.generation,
              after,
              limit: KNOBS.draftExportPage,
            });
            let chunk = "";
            // Versions saved after the export began are left out: it shows one head.
            const page = rows.filter((row) => row.number <= head.version);
            for (const row of page) {
              chunk += `${first ? "" : ","}${JSON.stringify(versionView(row))}`;
              first = false;
              after = row.number;
            }
            if (chunk !== "") controller.enqueue(encoder.encode(chunk));
            if (page.length < KNOBS.draftExportPage || after >= head.version) {
              controller.enqueue(encoder.encode("]}"));
              controller.close();
            }
          },
        });
        const filename = `hook-${t.label.replace(/[^\w.-]/g, "_")}-g${head.generation}-v${head.version}.json`;
        return c.body(stream, 200, {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="${filename}"`,
          etag: head.etag,
        });
      },
    );
}
