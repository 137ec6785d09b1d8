import { and, eq, isNull } from "drizzle-orm";
import { database } from "../db/client";
import { apiKeyProfiles, apiKeys } from "../db/schema";
import { secretsEqual, sha256Hex } from "./keys";
import { type KeyPrincipal, SCOPES, type Scope } from "./principal";

const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/**
 * `resolvePrincipal` and the access profile the key names (null: none, or the
 * platform key), in one D1 query: on a cold gateway isolate the two lookups
 * are two trips to the database's home.
 */
export async function resolveCaller(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY?: string },
  token: string,
): Promise<{ principal: KeyPrincipal; profile: string | null } | null> {
  if (env.RAYRUN_BOOTSTRAP_KEY && (await secretsEqual(token, env.RAYRUN_BOOTSTRAP_KEY))) {
    return { principal: { kind: "platform", actor: "bootstrap", keyId: "bootstrap" }, profile: null };
  }
  const row = await database(env.DB)
    .select({ key: apiKeys, profile: apiKeyProfiles.profile })
    .from(apiKeys)
    .leftJoin(apiKeyProfiles, eq(apiKeyProfiles.keyId, apiKeys.id))
    .where(and(eq(apiKeys.secretHash, await sha256Hex(token)), isNull(apiKeys.revokedAt)))
    .get();
  if (!row) return null;
  return { principal: keyPrincipal(row.key), profile: row.profile };
}

const keyPrincipal = (row: typeof apiKeys.$inferSelect): KeyPrincipal => ({
  kind: "key",
  actor: row.actor,
  keyId: row.id,
  workspaceUid: row.workspaceUid,
  scopes: row.scopes.filter(isScope),
});

/** Who a bearer token belongs to, or null for an unknown or revoked key. */
export async function resolvePrincipal(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY?: string },
  token: string,
): Promise<KeyPrincipal | null> {
  if (env.RAYRUN_BOOTSTRAP_KEY && (await secretsEqual(token, env.RAYRUN_BOOTSTRAP_KEY))) {
    return { kind: "platform", actor: "bootstrap", keyId: "bootstrap" };
  }
  // Keys are looked up by the hash of the whole token; the hash is the only thing stored.
  const row = await database(env.DB)
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.secretHash, await sha256Hex(token)), isNull(apiKeys.revokedAt)))
    .get();
  return row ? keyPrincipal(row) : null;
}
