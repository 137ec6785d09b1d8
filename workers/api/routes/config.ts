// `GET/PUT /v1/workspaces/{ws}/config`: the workspace config document, replaced
// whole under optimistic concurrency (ETag / If-Match, like drafts).
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { WorkspaceConfigDocument } from "../../../shared/config/schema";
import { getStoredConfig, type StoredConfig, writeWorkspaceConfig } from "../../../shared/config/store";
import { ProblemException } from "../../../shared/http/problem";
import { utf8Bytes } from "../../../shared/json";
import { parseIfMatch } from "../lifecycle/etag";
import { LIMITS } from "../../../shared/limits";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const PutConfigBody = WorkspaceConfigDocument;

const StoredConfigAnswer = z.object({
  config: WorkspaceConfigDocument.describe("The config in force: what was stored, with defaults filled in"),
  version: z.number().int().describe("0 while the workspace has never changed it"),
  etag: z.string(),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
});
const STORED_CONFIG = { description: "The config with its version and ETag", schema: StoredConfigAnswer };

function respond(c: Context<ApiEnv>, stored: StoredConfig) {
  c.header("etag", stored.etag);
  return c.json(shaped(StoredConfigAnswer, stored));
}

function stale(current: StoredConfig): ProblemException {
  return new ProblemException({
    code: "precondition_failed",
    detail: "The workspace config has changed since that ETag; read it again and retry.",
    extensions: { etag: current.etag, version: current.version },
    headers: { etag: current.etag },
  });
}

export const configRoutes = new Hono<ApiEnv>()
  .get(
    "/workspaces/:ws/config",
    operation({
      summary: "Workspace config (defaults filled) with its ETag",
      ok: { "200": STORED_CONFIG },
      etag: "returns",
      problems: [404],
    }),
    requireScope("hooks:read"),
    async (c) => {
      const ws = c.req.param("ws");
      await requireWorkspace(c.var.db, ws);
      return respond(c, await getStoredConfig(c.env.DB, ws));
    },
  )
  .put(
    "/workspaces/:ws/config",
    operation({
      summary: "Replace the workspace config",
      ok: { "200": STORED_CONFIG },
      etag: "requires",
      problems: [404, 412, 428],
    }),
    requireScope("admin"),
    ...jsonBody(PutConfigBody),
    async (c) => {
      const ws = c.req.param("ws");
      const document = c.req.valid("json");
      await requireWorkspace(c.var.db, ws);
      const ifMatch = parseIfMatch(c.req.header("if-match"));
      if (ifMatch.kind !== "tags") {
        throw new ProblemException({
          code: "precondition_required",
          detail:
            ifMatch.kind === "wildcard"
              ? "If-Match must name the config's ETag; * is not accepted."
              : "Send If-Match with the config's ETag (from GET …/config).",
        });
      }
      const bytes = utf8Bytes(JSON.stringify(document));
      if (bytes > LIMITS.configBytes) {
        throw new ProblemException({
          code: "payload_too_large",
          detail: `The config is ${bytes} bytes of JSON; the limit is ${LIMITS.configBytes}.`,
          extensions: { field: "/", limit: LIMITS.configBytes, size: bytes },
        });
      }
      const current = await getStoredConfig(c.env.DB, ws);
      if (!ifMatch.tags.includes(current.etag)) throw stale(current);
      const outcome = await writeWorkspaceConfig(c.env.DB, {
        workspaceUid: ws,
        document,
        expectedVersion: current.version,
        actor: c.get("principal").actor,
        now: new Date().toISOString(),
      });
      // Another write landed between the read and this one: its ETag is the current one.
      if (outcome.kind === "stale") throw stale(await getStoredConfig(c.env.DB, ws));
      return respond(c, outcome.stored);
    },
  );
