// The drizzle client over D1: typed reads and writes, SQL defaults, JSON columns.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { database } from "../../../shared/db/client";
import { apiKeys, workspaces } from "../../../shared/db/schema";

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("database", () => {
  it("fills created_at with the time as ISO-8601 UTC with milliseconds", async () => {
    const db = database(env.DB);
    const uid = `ws_${crypto.randomUUID()}`;
    const before = Date.now();
    await db.insert(workspaces).values({ uid, name: "client", createdBy: "tester" });
    const row = await db.select().from(workspaces).where(eq(workspaces.uid, uid)).get();
    expect(row).toMatchObject({ uid, name: "client", createdBy: "tester" });
    expect(row?.createdAt).toMatch(ISO_MS);
    // D1's clock and the test's can differ by a little; the default is the write's time.
    expect(Math.abs(Date.parse(row?.createdAt ?? "") - before)).toBeLessThan(60_000);
  });

  it("stores JSON columns as JSON text and reads them back as values", async () => {
    const db = database(env.DB);
    const uid = `ws_${crypto.randomUUID()}`;
    await db.insert(workspaces).values({ uid, name: "json", createdBy: "tester" });
    const id = `key_${crypto.randomUUID()}`;
    await db.insert(apiKeys).values({
      id,
      workspaceUid: uid,
      secretHash: crypto.randomUUID(),
      scopes: ["hooks:read", "tools:call"],
      actor: "tester",
    });
    const raw = await env.DB.prepare("select scopes, revoked_at from api_keys where id = ?")
      .bind(id)
      .first<{ scopes: string; revoked_at: string | null }>();
    expect(JSON.parse(raw?.scopes ?? "null")).toEqual(["hooks:read", "tools:call"]);
    expect(raw?.revoked_at).toBeNull();
    const row = await db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    expect(row?.scopes).toEqual(["hooks:read", "tools:call"]);
  });

  it("a unique column refuses a second row with the same value", async () => {
    const db = database(env.DB);
    const uid = `ws_${crypto.randomUUID()}`;
    await db.insert(workspaces).values({ uid, name: "unique", createdBy: "tester" });
    const secretHash = crypto.randomUUID();
    const key = (id: string) => ({ id, workspaceUid: uid, secretHash, scopes: [], actor: "tester" });
    await db.insert(apiKeys).values(key(`key_${crypto.randomUUID()}`));
    const refused: unknown = await db
      .insert(apiKeys)
      .values(key(`key_${crypto.randomUUID()}`))
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(Error);
    // drizzle wraps D1's error; the cause names the constraint.
    const cause = refused instanceof Error ? refused.cause : undefined;
    expect(String(cause instanceof Error ? cause.message : cause)).toMatch(/UNIQUE/i);
    const { results } = await env.DB.prepare("select id from api_keys where secret_hash = ?")
      .bind(secretHash)
      .all();
    expect(results).toHaveLength(1);
  });
});
