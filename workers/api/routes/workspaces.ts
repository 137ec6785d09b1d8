import { and, desc, eq, isNull, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../../shared/auth/keys";
import { SCOPES } from "../../../shared/auth/principal";
import { database } from "../../../shared/db/client";
import { DEFAULT_PROFILE, PROFILE_NAME_PATTERN, profileExists } from "../../../shared/access";
import { apiKeyProfiles, apiKeys, workspaces } from "../../../shared/db/schema";
import { ProblemException } from "../../../shared/http/problem";
import { newId, newSecret } from "../../../shared/ids";
import { requirePlatformAdmin, requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { pageQuery } from "../middleware/page";
import type { ApiEnv } from "../types";

export const CreateWorkspaceRequest = z.object({ name: z.string().trim().min(1).max(100) }).strict();

export const CreateKeyRequest = z
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

const keyView = (row: typeof apiKeys.$inferSelect) => ({
  id: row.id,
  scopes: row.scopes,
  actor: row.actor,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
});

async function requireWorkspace(db: D1Database, uid: string) {
  const row = await database(db).select().from(workspaces).where(eq(workspaces.uid, uid)).get();
  if (!row)
    throw new ProblemException({ code: "workspace_not_found", detail: `Workspace ${uid} does not exist.` });
  return row;
}

export const workspaceRoutes = new Hono<ApiEnv>()
  .post("/workspaces", requirePlatformAdmin, ...jsonBody(CreateWorkspaceRequest), async (c) => {
    const { name } = c.req.valid("json");
    const row = { uid: newId("ws"), name, createdBy: c.get("principal").actor };
    const [created] = await database(c.env.DB).insert(workspaces).values(row).returning();
    return c.json(created, 201);
  })
  .get("/workspaces/:ws", requireScope("hooks:read"), async (c) => {
    return c.json(await requireWorkspace(c.env.DB, c.req.param("ws")));
  })
  .post("/workspaces/:ws/keys", requireScope("admin"), ...jsonBody(CreateKeyRequest), async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(c.env.DB, ws);
    const { scopes, actor, profile = DEFAULT_PROFILE } = c.req.valid("json");
    if (!(await profileExists(c.env.DB, ws, profile))) {
      throw new ProblemException({
        code: "invalid_request",
        detail: `No access profile ${profile} in this workspace; create it with PUT …/access-profiles/${profile} first.`,
      });
    }
    const id = newId("key");
    // The whole token is hashed for lookup; only the hash is stored.
    const key = `rr_${newSecret()}`;
    const db = database(c.env.DB);
    const insertKey = db
      .insert(apiKeys)
      .values({ id, workspaceUid: ws, secretHash: await sha256Hex(key), scopes, actor })
      .returning();
    const [[row]] =
      profile === DEFAULT_PROFILE
        ? [await insertKey]
        : await db.batch([
            insertKey,
            db.insert(apiKeyProfiles).values({ keyId: id, workspaceUid: ws, profile }),
          ]);
    if (!row) throw new Error("insert returned no row");
    return c.json({ ...keyView(row), profile, key }, 201);
  })
  .get("/workspaces/:ws/keys", requireScope("admin"), pageQuery, async (c) => {
    const ws = c.req.param("ws");
    await requireWorkspace(c.env.DB, ws);
    const { limit, cursor } = c.req.valid("query");
    const rows = await database(c.env.DB)
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceUid, ws), cursor ? lt(apiKeys.id, cursor) : undefined))
      .orderBy(desc(apiKeys.id))
      .limit(limit + 1)
      .all();
    const items = rows.slice(0, limit).map(keyView);
    return c.json({ items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null });
  })
  .delete("/workspaces/:ws/keys/:id", requireScope("admin"), async (c) => {
    const ws = c.req.param("ws");
    // The gateway keeps resolved keys briefly; the WorkspaceObject's revoked-key
    // list is what refuses a revoked key before any dispatch.
    const tellGateway = () => c.env.WORKSPACE.getByName(ws).revokeKey(c.req.param("id"));
    const revoked = await database(c.env.DB)
      .update(apiKeys)
      .set({ revokedAt: new Date().toISOString() })
      .where(and(eq(apiKeys.workspaceUid, ws), eq(apiKeys.id, c.req.param("id")), isNull(apiKeys.revokedAt)))
      .returning()
      .get();
    if (!revoked) {
      const existing = await database(c.env.DB)
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.workspaceUid, ws), eq(apiKeys.id, c.req.param("id"))))
        .get();
      // Revoking twice is idempotent; an unknown key is not.
      if (!existing)
        throw new ProblemException({ code: "not_found", detail: "No such key in this workspace." });
      // Revoking again also repeats telling the object, should an earlier attempt have failed there.
      await tellGateway();
      return c.json(keyView(existing));
    }
    await tellGateway();
    return c.json(keyView(revoked));
  });
