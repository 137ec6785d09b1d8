// Write-only workspace secrets (upstream and provider credentials).
//
// Each value is encrypted with AES-256-GCM under a key derived per workspace
// with HKDF-SHA-256 from the platform root key (`RAYRUN_BOOTSTRAP_KEY`):
//   key = HKDF(ikm = root key, salt = SECRET_KDF.salt, info = "workspace:<uid>")
// A fresh random 96-bit nonce per write; the additional authenticated data is
// `<workspace uid>/<secret name>`, so a ciphertext copied to another row or
// workspace does not decrypt. Changing the root key makes stored secrets
// unreadable (they must be written again); `keyVersion` marks the derivation.
// Values are decrypted only by the gateway (and the api's upstream refresh),
// never returned by the API and never passed to hooks.
import { and, asc, eq } from "drizzle-orm";
import { database } from "../db/client";
import { workspaceSecrets } from "../db/schema";
import { boundedCache } from "../cache";
import { KNOBS } from "../knobs";
import { LIMITS } from "../limits";

export const SECRET_KDF = { salt: "rayrun-hooks/workspace-secrets", version: 1 } as const;
/** Largest secret value, in UTF-8 bytes. */
export const SECRET_VALUE_BYTES = LIMITS.secretValueBytes;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Derived keys by root-key digest and workspace; deriving is cheap but not free
 * on the hot path. The promise is kept, so concurrent calls derive once.
 */
const keys = boundedCache<string, Promise<CryptoKey>>({ entries: KNOBS.secretKeyCacheEntries });

async function rootDigest(rootKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(rootKey));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

async function workspaceKey(rootKey: string, workspaceUid: string): Promise<CryptoKey> {
  const id = `${await rootDigest(rootKey)}:${workspaceUid}`;
  let key = keys.get(id);
  if (!key) {
    const derived = (async () => {
      const ikm = await crypto.subtle.importKey("raw", encoder.encode(rootKey), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: encoder.encode(SECRET_KDF.salt),
          info: encoder.encode(`workspace:${workspaceUid}`),
        },
        ikm,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    // A failed derivation is not kept (unless another has replaced it meanwhile).
    derived.catch(() => {
      if (keys.peek(id) === derived) keys.delete(id);
    });
    keys.set(id, derived);
    key = derived;
  }
  return key;
}

const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const aad = (workspaceUid: string, name: string) => encoder.encode(`${workspaceUid}/${name}`);

export interface SealedSecret {
  ciphertext: string;
  iv: string;
  keyVersion: number;
}

export async function sealSecret(
  rootKey: string,
  workspaceUid: string,
  name: string,
  value: string,
): Promise<SealedSecret> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await workspaceKey(rootKey, workspaceUid);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: aad(workspaceUid, name) },
    key,
    encoder.encode(value),
  );
  return { ciphertext: b64(new Uint8Array(sealed)), iv: b64(iv), keyVersion: SECRET_KDF.version };
}

/** The plain value, or null when it does not decrypt (wrong root key, moved or tampered row). */
export async function openSecret(
  rootKey: string,
  workspaceUid: string,
  name: string,
  sealed: SealedSecret,
): Promise<string | null> {
  if (sealed.keyVersion !== SECRET_KDF.version) return null;
  try {
    const key = await workspaceKey(rootKey, workspaceUid);
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: unb64(sealed.iv), additionalData: aad(workspaceUid, name) },
      key,
      unb64(sealed.ciphertext),
    );
    return decoder.decode(plain);
  } catch {
    return null;
  }
}

export async function putSecret(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  workspaceUid: string,
  name: string,
  value: string,
  actor: string,
): Promise<void> {
  const sealed = await sealSecret(env.RAYRUN_BOOTSTRAP_KEY, workspaceUid, name, value);
  const updatedAt = new Date().toISOString();
  await database(env.DB)
    .insert(workspaceSecrets)
    .values({ workspaceUid, name, ...sealed, updatedBy: actor, updatedAt })
    .onConflictDoUpdate({
      target: [workspaceSecrets.workspaceUid, workspaceSecrets.name],
      set: { ...sealed, updatedBy: actor, updatedAt },
    });
}

/** Names and write metadata only: values are never read back through the API. */
export function listSecretNames(db: D1Database, workspaceUid: string) {
  return database(db)
    .select({
      name: workspaceSecrets.name,
      updatedBy: workspaceSecrets.updatedBy,
      updatedAt: workspaceSecrets.updatedAt,
    })
    .from(workspaceSecrets)
    .where(eq(workspaceSecrets.workspaceUid, workspaceUid))
    .orderBy(asc(workspaceSecrets.name))
    .all();
}

export async function deleteSecret(db: D1Database, workspaceUid: string, name: string): Promise<boolean> {
  const removed = await database(db)
    .delete(workspaceSecrets)
    .where(and(eq(workspaceSecrets.workspaceUid, workspaceUid), eq(workspaceSecrets.name, name)))
    .returning({ name: workspaceSecrets.name })
    .all();
  return removed.length > 0;
}

/** The sealed row of a secret, or undefined (for callers that batch their reads). */
export function sealedSecretQuery(db: D1Database, workspaceUid: string, name: string) {
  return database(db)
    .select({
      ciphertext: workspaceSecrets.ciphertext,
      iv: workspaceSecrets.iv,
      keyVersion: workspaceSecrets.keyVersion,
    })
    .from(workspaceSecrets)
    .where(and(eq(workspaceSecrets.workspaceUid, workspaceUid), eq(workspaceSecrets.name, name)));
}

/** The decrypted value of a workspace secret, or null when it is not set (or does not decrypt). */
export async function readSecret(
  env: { DB: D1Database; RAYRUN_BOOTSTRAP_KEY: string },
  workspaceUid: string,
  name: string,
): Promise<string | null> {
  const sealed = await sealedSecretQuery(env.DB, workspaceUid, name).get();
  return sealed ? openSecret(env.RAYRUN_BOOTSTRAP_KEY, workspaceUid, name, sealed) : null;
}
