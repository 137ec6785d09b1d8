// Workspaces (created with the platform key) and their API keys.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../../shared/auth/keys";
import { SCOPES } from "../../../shared/auth/principal";
import { DEFAULT_PROFILE, PROFILE_NAME_PATTERN, profileExists } from "../../../shared/access";
import { ProblemException } from "../../../shared/http/problem";
import { newId, newSecret } from "../../../shared/ids";
import { requirePlatformAdmin, requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { mapPage, pageOf, pageQuery, paginate } from "../middleware/page";
import { operation, shaped } from "../openapi/describe";
import { type ApiKeyRow, createApiKey, findApiKey, listApiKeys, revokeApiKey } from "../stores/api-keys";
import { createWorkspace } from "../stores/workspaces";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const CreateWorkspaceRequest = z.object({ name: z.string().trim().min(1).max(100) }).strict();

const CreateKeyRequest = z
  .object({
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .refine((s) => new Set(s).size === s.length, "Scopes must be unique"),
    actor: z.string().trim().min(1).max(100).describe("Who acts with this key; recorded on every change"),
    profile: z
      .string()
      .regex(PROFILE_NAME_PATTERN, "An access profile name")
      .optional()
      .describe(`The access profile the key calls tools under; "${DEFAULT_PROFILE}" when absent`),
  })
  .strict();

const WorkspaceAnswer = z.object({
  uid: z.string(),
  name: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
});
const WORKSPACE = { description: "The workspace", schema: WorkspaceAnswer };

const KeyAnswer = z.object({
  id: z.string(),
  displayHint: z
    .string()
    .nullable()
    .describe(
      "rr_… and the secret's last four characters, to tell keys apart; null for keys minted before hints",
    ),
  scopes: z.array(z.string()),
  actor: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

const CreatedKeyAnswer = KeyAnswer.extend({
  profile: z.string().describe("The access profile the key calls tools under"),
  key: z.string().describe("The secret (rr_…), shown this once"),
});

const keyView = (row: ApiKeyRow) =>
  shaped(KeyAnswer, {
    id: row.id,
    displayHint: row.displayHint,
    scopes: row.scopes,
    actor: row.actor,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  });

export const workspaceRoutes = new Hono<ApiEnv>()
  .post(
    "/workspaces",
    operation({ summary: "Create a workspace", ok: { "201": WORKSPACE } }),
    requirePlatformAdmin,
    ...jsonBody(CreateWorkspaceRequest),
    async (c) => {
      const { name } = c.req.valid("json");
      const created = await createWorkspace(c.var.db, {
        uid: newId("ws"),
        name,
        createdBy: c.get("principal").actor,
      });
      return c.json(shaped(WorkspaceAnswer, created), 201);
    },
  )
  .get(
    "/workspaces/:ws",
    operation({ summary: "One workspace", ok: { "200": WORKSPACE }, problems: [404] }),
    requireScope("hooks:read"),
    async (c) => {
      return c.json(shaped(WorkspaceAnswer, await requireWorkspace(c.var.db, c.req.param("ws"))));
    },
  )
  .post(
    "/workspaces/:ws/keys",
    operation({
      summary: "Mint an API key (the secret is shown once)",
      ok: { "201": { description: "The key with its secret", schema: CreatedKeyAnswer } },
      problems: [404],
    }),
    requireScope("admin"),
    ...jsonBody(CreateKeyRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const { scopes, actor, profile = DEFAULT_PROFILE } = c.req.valid("json");
      if (!(await profileExists(c.env.DB, ws, profile))) {
        throw new ProblemException({
          code: "invalid_request",
          detail: `No access profile ${profile} in this workspace; create it with PUT …/access-profiles/${profile} first.`,
        });
      }
      // The whole token is hashed for lookup; only the hash and a hint too short to guess from are stored.
      const key = `rr_${newSecret()}`;
      const displayHint = `rr_…${key.slice(-4)}`;
      const row = await createApiKey(
        db,
        { id: newId("key"), workspaceUid: ws, secretHash: await sha256Hex(key), displayHint, scopes, actor },
        profile === DEFAULT_PROFILE ? null : profile,
      );
      return c.json(shaped(CreatedKeyAnswer, { ...keyView(row), profile, key }), 201);
    },
  )
  .get(
    "/workspaces/:ws/keys",
    operation({ summary: "API keys, without secrets", ok: { "200": pageOf(KeyAnswer) } }),
    requireScope("admin"),
    pageQuery,
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const page = await paginate(
        c.req.valid("query"),
        (after, limit) => listApiKeys(db, ws, { after, limit }),
        (row) => row.id,
      );
      return c.json(mapPage(page, keyView));
    },
  )
  .delete(
    "/workspaces/:ws/keys/:id",
    operation({
      summary: "Revoke a key",
      ok: { "200": { description: "The revoked key", schema: KeyAnswer } },
      problems: [404],
    }),
    requireScope("admin"),
    async (c) => {
      const ws = c.req.param("ws");
      const id = c.req.param("id");
      const db = c.var.db;
      // The gateway keeps resolved keys briefly; the WorkspaceObject's revoked-key
      // list is what refuses a revoked key before any dispatch.
      const tellGateway = () => workspaceObject(c.env, ws).revokeKey(id);
      const revoked = await revokeApiKey(db, ws, id, new Date().toISOString());
      if (!revoked) {
        const existing = await findApiKey(db, ws, id);
        // Revoking twice is idempotent; an unknown key is not.
        if (!existing)
          throw new ProblemException({ code: "not_found", detail: "No such key in this workspace." });
        // Revoking again also repeats telling the object, should an earlier attempt have failed there.
        await tellGateway();
        return c.json(keyView(existing));
      }
      await tellGateway();
      return c.json(keyView(revoked));
    },
  );
