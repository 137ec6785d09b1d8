// The draft of a lifecycle target: `GET {base}` (draft and deployments),
// `PUT {base}/draft`, and restoring a version into it. Saves go through the
// workspace's object under optimistic concurrency (ETag / If-Match). Generic
// over a resolver: app.ts mounts them under a tool's `…/tools/{tool}/hook` and
// a workspace file's `…/files/{path}`.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import type { Database } from "../../../shared/db/client";
import { ProblemException } from "../../../shared/http/problem";
import { type JsonObject, utf8Bytes } from "../../../shared/json";
import { parseConfig, prepareDraft, storedDraft } from "../lifecycle/draft";
import { parseIfMatch } from "../lifecycle/etag";
import { getVersion } from "../lifecycle/versions";
import {
  CHANNELS,
  type Channel,
  type Head,
  type SaveDraftOutcome,
  type VersionRow,
  workspaceObject,
} from "../../../durable-objects/workspace/rpc";
import { LIMITS } from "../../../shared/limits";
import { requireScope } from "../middleware/auth";
import { jsonBody, limitBody, optionalJsonBody } from "../middleware/json-body";
import { quotaProblem } from "../middleware/quota";
import { SavedDraftAnswer, TargetStateAnswer } from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import {
  deploymentsView,
  type ResolvedTarget,
  type Resolver,
  requireVersion,
  versionParam,
} from "../targets";
import type { ApiEnv } from "../types";

const SaveDraftBody = z
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
      .describe(
        "Where the save came from; also read from x-rayrun-channel; else api (web for signed-in users)",
      ),
  })
  .strict();

const RestoreBody = z
  .object({
    note: z.string().max(1000).optional(),
    channel: z.enum(CHANNELS).optional(),
  })
  .strict();

const stubOf = (c: Context<ApiEnv>, workspaceUid: string) => workspaceObject(c.env, workspaceUid);

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

async function headRow(db: Database, t: ResolvedTarget, head: Head): Promise<VersionRow | null> {
  if (head.version === 0) return null;
  const row = await getVersion(db, t.workspaceUid, t.target, head.generation, head.version);
  if (!row) throw new Error(`head ${head.etag} of ${t.target} has no stored version`);
  return row;
}

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
  // Browser users work in the web console.
  if (header === undefined) return c.get("principal").kind === "user" ? "web" : "api";
  const parsed = z.enum(CHANNELS).safeParse(header.trim().toLowerCase());
  if (!parsed.success) {
    throw new ProblemException({
      code: "invalid_request",
      detail: `x-rayrun-channel must be one of ${CHANNELS.join(", ")}.`,
    });
  }
  return parsed.data;
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

const SAVED = { description: "The draft as saved, with the ETag", schema: SavedDraftAnswer };

/** Turns the object's answer into the HTTP answer: a problem, or `{ draft, version, noop }` with the ETag. */
async function saveResponse(c: Context<ApiEnv>, t: ResolvedTarget, outcome: SaveDraftOutcome) {
  if (outcome.kind !== "saved" && outcome.kind !== "noop") throw saveProblem(outcome);
  const { head } = outcome;
  const row = outcome.kind === "saved" ? outcome.row : await headRow(c.var.db, t, head);
  c.header("etag", head.etag);
  return c.json(
    shaped(SavedDraftAnswer, {
      draft: draftFromRow(row, head),
      version: head.version,
      noop: outcome.kind === "noop",
    }),
  );
}

/** The draft/version routes for one kind of target, mounted under its base path (`…/hook`, `…/files/{path}`). */
/** The draft routes for one kind of target, mounted under its base path (`…/hook`, `…/files/{path}`). */
export function draftRoutes(resolve: Resolver) {
  return new Hono<ApiEnv>()
    .get(
      "/",
      operation({
        summary: "Draft (source, config, version) and deployments",
        ok: { "200": { description: "The draft and where the channels point", schema: TargetStateAnswer } },
        etag: "returns",
        problems: [404],
      }),
      requireScope("hooks:read"),
      async (c) => {
        const t = await resolve(c);
        const { head, pointers } = await stubOf(c, t.workspaceUid).getHookState(t.workspaceUid, t.target);
        const draft = draftFromRow(await headRow(c.var.db, t, head), head);
        c.header("etag", head.etag);
        return c.json(shaped(TargetStateAnswer, { draft, deployments: deploymentsView(pointers) }));
      },
    )
    .put(
      "/draft",
      operation({
        summary: "Save the draft (identical saves are no-ops)",
        ok: { "200": SAVED },
        etag: "requires",
        problems: [404, 409, 412, 428, 429],
      }),
      requireScope("hooks:write"),
      ...jsonBody(SaveDraftBody),
      async (c) => {
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
      },
    )
    .post(
      "/versions/:n/restore",
      operation({
        summary: "Copy a version into a new draft version",
        ok: { "200": SAVED },
        optionalBody: RestoreBody,
        etag: "requires",
        problems: [400, 404, 409, 412, 415, 428, 429],
      }),
      requireScope("hooks:write"),
      limitBody(),
      async (c) => {
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
      },
    );
}
