// Drafts and versions of a hook: `…/tools/{tool}/hook`, `/draft`, `/versions…`,
// `/export`. The handlers are generic over a lifecycle target: workspace files
// (`file:<path>`, files.ts) mount the same routes with their own resolver.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../shared/db/client";
import { ProblemException } from "../../../shared/http/problem";
import { type JsonObject, utf8Bytes } from "../../../shared/json";
import { diffVersions } from "../../../shared/lifecycle/diff";
import {
  CHANNELS,
  type Channel,
  parseConfig,
  prepareDraft,
  storedDraft,
} from "../../../shared/lifecycle/draft";
import { parseIfMatch } from "../../../shared/lifecycle/etag";
import type { Pointer } from "../../../shared/lifecycle/pointers";
import { type Target, toolTarget } from "../../../shared/lifecycle/target";
import {
  getVersion,
  listVersions,
  type VersionRow,
  versionsAfter,
  versionView,
} from "../../../shared/lifecycle/versions";
import type { Head, SaveDraftOutcome } from "../../../shared/lifecycle/workspace-object";
import { LIMITS } from "../../../shared/limits";
import { findTool } from "../../../shared/services/store";
import { requireScope } from "../middleware/auth";
import { jsonBody, limitBody, optionalJsonBody } from "../middleware/json-body";
import { pageQuery } from "../middleware/page";
import { quotaProblem } from "../middleware/quota";
import type { ApiEnv } from "../types";
import { refuseDeleted, requireWorkspace } from "./services";

export const SaveDraftBody = z
  .object({
    source: z.string().describe("Hook source (TypeScript); formatted on save when it parses"),
    config: z
      .record(z.string(), z.json())
      .optional()
      .describe("Non-secret JSON object the hook reads as context.config; {} when omitted"),
    note: z.string().max(1000).optional().describe("Why this version exists; shown in history"),
    channel: z
      .enum(CHANNELS)
      .optional()
      .describe("Where the save came from; also read from x-rayrun-channel"),
  })
  .strict();

export const RestoreBody = z
  .object({
    note: z.string().max(1000).optional(),
    channel: z.enum(CHANNELS).optional(),
  })
  .strict();

/** What a route acts on: the workspace, the lifecycle target, and whether it takes writes. */
export interface ResolvedTarget {
  workspaceUid: string;
  target: Target;
  /** Used in the export's file name. */
  label: string;
  /** Throws the problem that refuses a write (history-only targets), or does nothing. */
  refuseWrite: (action: string) => void;
}

type Resolver = (c: Context<ApiEnv>) => Promise<ResolvedTarget>;

/** The route's `{ws}` and `{tool}`: an indexed tool of an existing workspace, with its service, or 404. */
export async function routeTool(c: Context<ApiEnv>) {
  const workspaceUid = c.req.param("ws") ?? "";
  const toolUid = c.req.param("tool") ?? "";
  const db = database(c.env.DB);
  await requireWorkspace(db, workspaceUid);
  const found = await findTool(db, workspaceUid, toolUid);
  if (!found)
    throw new ProblemException({ code: "not_found", detail: `No tool ${toolUid} in this workspace.` });
  return { workspaceUid, toolUid, ...found };
}

/** `{tool}` must be an indexed tool of the workspace; a deleted service's tools are history-only. */
export const resolveToolTarget: Resolver = async (c) => {
  const { workspaceUid, toolUid, service } = await routeTool(c);
  return {
    workspaceUid,
    target: toolTarget(toolUid),
    label: toolUid,
    refuseWrite: (action) => refuseDeleted(service, action),
  };
};

const stubOf = (c: Context<ApiEnv>, workspaceUid: string) => c.env.WORKSPACE.getByName(workspaceUid);

export interface DraftView {
  source: string;
  config: JsonObject;
  version: number;
  etag: string;
  formatted: boolean;
  updatedAt: string | null;
  actor: string | null;
  channel: Channel | null;
  note: string | null;
}

const draftFromRow = (row: VersionRow | null, head: Head): DraftView =>
  row === null
    ? {
        source: "",
        config: {},
        version: 0,
        etag: head.etag,
        formatted: false,
        updatedAt: null,
        actor: null,
        channel: null,
        note: null,
      }
    : {
        source: row.source,
        config: parseConfig(row.config),
        version: row.number,
        etag: head.etag,
        formatted: row.formatted,
        updatedAt: row.createdAt,
        actor: row.actor,
        channel: row.channel,
        note: row.note,
      };

async function headRow(db: D1Database, t: ResolvedTarget, head: Head): Promise<VersionRow | null> {
  if (head.version === 0) return null;
  const row = await getVersion(db, t.workspaceUid, t.target, head.generation, head.version);
  if (!row) throw new Error(`head ${head.etag} of ${t.target} has no stored version`);
  return row;
}

export const pointerView = (pointer: Pointer | null) =>
  pointer === null ? null : { revisionId: pointer.revisionId, setAt: pointer.setAt };

/** `If-Match` as entity tags; missing (or `*`, which would skip the check) is 428. */
function requireIfMatch(c: Context<ApiEnv>): readonly string[] {
  const parsed = parseIfMatch(c.req.header("if-match"));
  if (parsed.kind !== "tags") {
    throw new ProblemException({
      code: "precondition_required",
      detail:
        parsed.kind === "wildcard"
          ? "If-Match must name the draft's ETag; * is not accepted."
          : "Send If-Match with the draft's ETag (from GET …/hook).",
    });
  }
  return parsed.tags;
}

function channelOf(c: Context<ApiEnv>, fromBody: Channel | undefined): Channel {
  if (fromBody !== undefined) return fromBody;
  const header = c.req.header("x-rayrun-channel");
  if (header === undefined) return "api";
  const parsed = z.enum(CHANNELS).safeParse(header.trim().toLowerCase());
  if (!parsed.success) {
    throw new ProblemException({
      code: "invalid_request",
      detail: `x-rayrun-channel must be one of ${CHANNELS.join(", ")}.`,
    });
  }
  return parsed.data;
}

const VERSION_PARAM = /^[1-9][0-9]{0,8}$/;

function versionParam(c: Context<ApiEnv>): number {
  const n = c.req.param("n") ?? "";
  if (!VERSION_PARAM.test(n)) {
    throw new ProblemException({
      code: "invalid_request",
      detail: "A version number is a positive integer.",
    });
  }
  return Number(n);
}

async function requireVersion(c: Context<ApiEnv>, t: ResolvedTarget, number: number) {
  const head = await stubOf(c, t.workspaceUid).getHead(t.workspaceUid, t.target);
  const row =
    number > head.version
      ? null
      : await getVersion(c.env.DB, t.workspaceUid, t.target, head.generation, number);
  if (!row) throw new ProblemException({ code: "not_found", detail: `Version ${number} does not exist.` });
  return { head, row };
}

function tooLarge(field: string, limit: number, size: number): ProblemException {
  return new ProblemException({
    code: "payload_too_large",
    detail: `${field} is ${size} bytes; the limit is ${limit}.`,
    extensions: { field: `/${field}`, limit, size },
  });
}

type Refusal = Exclude<SaveDraftOutcome, { kind: "saved" | "noop" }>;

/** The problem a refused save answers with. */
function saveProblem(outcome: Refusal): ProblemException {
  if (outcome.kind === "stale") {
    return new ProblemException({
      code: "precondition_failed",
      detail: "The draft has changed since that ETag; read it again and retry.",
      extensions: { etag: outcome.head.etag, version: outcome.head.version },
      headers: { etag: outcome.head.etag },
    });
  }
  if (outcome.kind === "rate_limited") {
    const { kind: _kind, ...quota } = outcome;
    return quotaProblem(quota, "draft saves per workspace");
  }
  const { kind: _kind, ...allowance } = outcome;
  return new ProblemException({
    code: "allowance_exceeded",
    detail: `The workspace's draft history would exceed ${outcome.limit} bytes; export the versions you need and reset hooks to reclaim it.`,
    extensions: allowance,
  });
}

/** Turns the object's answer into the HTTP answer: a problem, or `{ draft, version, noop }` with the ETag. */
async function saveResponse(c: Context<ApiEnv>, t: ResolvedTarget, outcome: SaveDraftOutcome) {
  if (outcome.kind !== "saved" && outcome.kind !== "noop") throw saveProblem(outcome);
  const { head } = outcome;
  const row = outcome.kind === "saved" ? outcome.row : await headRow(c.env.DB, t, head);
  c.header("etag", head.etag);
  return c.json({ draft: draftFromRow(row, head), version: head.version, noop: outcome.kind === "noop" });
}

const EXPORT_PAGE = 20;

/** The draft/version routes for one kind of target, mounted under its base path (`…/hook`, `…/files/{path}`). */
export function lifecycleRoutes(resolve: Resolver) {
  return new Hono<ApiEnv>()
    .get("/", requireScope("hooks:read"), async (c) => {
      const t = await resolve(c);
      const { head, pointers } = await stubOf(c, t.workspaceUid).getHookState(t.workspaceUid, t.target);
      const draft = draftFromRow(await headRow(c.env.DB, t, head), head);
      c.header("etag", head.etag);
      return c.json({
        draft,
        deployments: { active: pointerView(pointers.active), shadow: pointerView(pointers.shadow) },
      });
    })
    .put("/draft", requireScope("hooks:write"), ...jsonBody(SaveDraftBody), async (c) => {
      const body = c.req.valid("json");
      const t = await resolve(c);
      t.refuseWrite("take draft saves");
      const ifMatch = requireIfMatch(c);
      const channel = channelOf(c, body.channel);
      const config = body.config ?? {};
      const sourceBytes = utf8Bytes(body.source);
      if (sourceBytes > LIMITS.sourceBytes) throw tooLarge("source", LIMITS.sourceBytes, sourceBytes);
      const configBytes = utf8Bytes(JSON.stringify(config));
      if (configBytes > LIMITS.configBytes) throw tooLarge("config", LIMITS.configBytes, configBytes);
      const draft = await prepareDraft({ source: body.source, config }, LIMITS.sourceBytes);
      const principal = c.get("principal");
      const outcome = await stubOf(c, t.workspaceUid).saveDraft({
        workspaceUid: t.workspaceUid,
        target: t.target,
        ifMatch,
        draft,
        actor: principal.actor,
        keyId: principal.keyId,
        channel,
        note: body.note ?? null,
        restoredFrom: null,
        now: Date.now(),
      });
      return saveResponse(c, t, outcome);
    })
    .get("/versions", requireScope("hooks:read"), pageQuery, async (c) => {
      const t = await resolve(c);
      const { limit, cursor } = c.req.valid("query");
      if (cursor !== undefined && !VERSION_PARAM.test(cursor)) {
        throw new ProblemException({
          code: "invalid_request",
          detail: "The cursor is not one this API returned.",
        });
      }
      const head = await stubOf(c, t.workspaceUid).getHead(t.workspaceUid, t.target);
      const rows = await listVersions(c.env.DB, {
        workspaceUid: t.workspaceUid,
        target: t.target,
        generation: head.generation,
        limit: limit + 1,
        ...(cursor === undefined ? {} : { before: Number(cursor) }),
      });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return c.json({ items, nextCursor: rows.length > limit && last ? String(last.version) : null });
    })
    .get("/versions/:n", requireScope("hooks:read"), async (c) => {
      const t = await resolve(c);
      const { row } = await requireVersion(c, t, versionParam(c));
      return c.json(versionView(row));
    })
    .get("/versions/:n/diff", requireScope("hooks:read"), async (c) => {
      const t = await resolve(c);
      const { head, row } = await requireVersion(c, t, versionParam(c));
      const previous =
        row.number === 1
          ? null
          : await getVersion(c.env.DB, t.workspaceUid, t.target, head.generation, row.number - 1);
      if (row.number > 1 && !previous) throw new Error(`version ${row.number - 1} of ${t.target} is missing`);
      const before = previous
        ? {
            version: previous.number,
            source: previous.source,
            config: parseConfig(previous.config),
          }
        : { version: 0, source: "", config: {} };
      const after = { version: row.number, source: row.source, config: parseConfig(row.config) };
      return c.json(diffVersions(before, after));
    })
    .post("/versions/:n/restore", requireScope("hooks:write"), limitBody(), async (c) => {
      const number = versionParam(c);
      const body = await optionalJsonBody(c.req.raw, RestoreBody);
      const t = await resolve(c);
      t.refuseWrite("restore versions");
      const ifMatch = requireIfMatch(c);
      const channel = channelOf(c, body.channel);
      const { row } = await requireVersion(c, t, number);
      const principal = c.get("principal");
      const outcome = await stubOf(c, t.workspaceUid).saveDraft({
        workspaceUid: t.workspaceUid,
        target: t.target,
        ifMatch,
        // The stored form, verbatim: restoring never reformats.
        draft: await storedDraft({ source: row.source, configJson: row.config, formatted: row.formatted }),
        actor: principal.actor,
        keyId: principal.keyId,
        channel,
        note: body.note ?? null,
        restoredFrom: number,
        now: Date.now(),
      });
      return saveResponse(c, t, outcome);
    })
    .get("/export", requireScope("hooks:read"), async (c) => {
      const t = await resolve(c);
      const head = await stubOf(c, t.workspaceUid).getHead(t.workspaceUid, t.target);
      const db = c.env.DB;
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
            limit: EXPORT_PAGE,
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
          if (page.length < EXPORT_PAGE || after >= head.version) {
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
    });
}

export const hookRoutes = new Hono<ApiEnv>().route(
  "/workspaces/:ws/tools/:tool/hook",
  lifecycleRoutes(resolveToolTarget),
);
