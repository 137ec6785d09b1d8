// POST/GET/DELETE /v1/session: one-use sign-in links, the session cookie's
// attributes, expiry, CSRF on cookie writes, and sessions started from a
// Cloudflare Access JWT (signed here with the key whose JWKS vitest.config.ts
// serves at https://access.test).
import { env, exports } from "cloudflare:workers";
import { importJWK, SignJWT, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../shared/auth/keys";
import { call, createKey, createWorkspace, expectProblem, json } from "../../../helpers/api";
import {
  asUser,
  exchange,
  invite,
  type Session,
  sessionCookie,
  signIn,
  tokenOf,
} from "../../../helpers/session";

const ACCESS_TEAM = "https://access.test";
const ACCESS_AUD = "test-access-aud";

const count = async (sql: string, ...binds: unknown[]) =>
  (
    await env.DB.prepare(sql)
      .bind(...binds)
      .first<{ n: number }>()
  )?.n ?? 0;

const getSession = (headers: Record<string, string>, origin = "http://rayrun.test") =>
  exports.default.fetch(`${origin}/v1/session`, { headers });

describe("sign-in links", () => {
  it("a link starts a session once; the cookie is HttpOnly, SameSite=Strict, Secure, 12 h; only hashes are stored", async () => {
    const ws = (await createWorkspace("session")).uid;
    const invited = await invite(ws, "editor", "erin", "Erin@Example.com");
    expect(invited.signIn.url).toMatch(/^http:\/\/rayrun\.test\/sign-in#token=[\w-]{40,}$/);
    const token = tokenOf(invited.signIn.url);
    const res = await exchange(token);
    const setCookie = res.headers.get("set-cookie") ?? "";
    const session = await json<Session>(res, 200);
    expect(session).toEqual({
      user: { id: invited.user.id, name: "erin", email: "erin@example.com", role: "editor" },
      workspace: ws,
      csrfToken: expect.any(String),
      expiresAt: expect.any(String),
    });
    const lifetime = Date.parse(session.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(12 * 3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3_600_000);
    expect(setCookie).toMatch(/^rayrun_session=[\w-]+;/);
    for (const attribute of ["Max-Age=43200", "Path=/", "HttpOnly", "Secure", "SameSite=Strict"]) {
      expect(setCookie).toContain(attribute);
    }
    const cookie = sessionCookie(res) ?? "";
    const value = cookie.slice("rayrun_session=".length);
    const stored = await env.DB.prepare("select * from sessions where user_id = ?")
      .bind(invited.user.id)
      .all();
    expect(stored.results).toEqual([
      expect.objectContaining({ id_hash: await sha256Hex(value), workspace_uid: ws }),
    ]);
    expect(JSON.stringify(stored.results)).not.toContain(value);
    const links = await env.DB.prepare("select * from sign_in_links where user_id = ?")
      .bind(invited.user.id)
      .all();
    expect(links.results).toEqual([
      expect.objectContaining({ token_hash: await sha256Hex(token), used_at: expect.any(String) }),
    ]);
    expect(JSON.stringify(links.results)).not.toContain(token);

    // The cookie answers GET /v1/session and authenticates routes.
    expect(await json(await getSession({ cookie }), 200)).toEqual(session);
    await json(await asUser({ cookie, csrfToken: "" }, "GET", `/v1/workspaces/${ws}`), 200);
    const users = await json<{ users: { id: string; lastSignInAt: string | null }[] }>(
      await call("GET", `/v1/workspaces/${ws}/users`),
      200,
    );
    expect(users.users.find((u) => u.id === invited.user.id)?.lastSignInAt).toEqual(expect.any(String));

    // Second use: refused, no second session.
    const again = await exchange(token);
    expect(again.headers.get("set-cookie")).toBeNull();
    await expectProblem(again, 401, "sign_in_link_invalid");
    expect(await count("select count(*) as n from sessions where user_id = ?", invited.user.id)).toBe(1);
  });

  it("on localhost the cookie is not Secure (browsers drop Secure cookies over http)", async () => {
    const ws = (await createWorkspace("local")).uid;
    const invited = await invite(ws, "viewer");
    for (const origin of ["http://localhost:8787", "http://127.0.0.1:8787", "http://[::1]:8787"]) {
      const res = await exchange(
        tokenOf(
          (
            await json<{ signIn: { url: string } }>(
              await call("POST", `/v1/workspaces/${ws}/users/${invited.user.id}/sign-in-links`),
              201,
            )
          ).signIn.url,
        ),
        origin,
      );
      const setCookie = res.headers.get("set-cookie") ?? "";
      await json(res, 200);
      expect(setCookie).toContain("HttpOnly");
      expect(setCookie).toContain("SameSite=Strict");
      expect(setCookie).not.toContain("Secure");
    }
  });

  it("an expired, unknown or malformed link is refused and starts nothing", async () => {
    const ws = (await createWorkspace("expired")).uid;
    const invited = await invite(ws, "admin");
    const token = tokenOf(invited.signIn.url);
    await env.DB.prepare("update sign_in_links set expires_at = ? where token_hash = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), await sha256Hex(token))
      .run();
    await expectProblem(await exchange(token), 401, "sign_in_link_invalid");
    await expectProblem(await exchange(`x${token}`), 401, "sign_in_link_invalid");
    const bad = await exchange("");
    await expectProblem(bad, 400, "invalid_request");
    expect(await count("select count(*) as n from sessions where user_id = ?", invited.user.id)).toBe(0);
    const link = await env.DB.prepare("select used_at from sign_in_links where token_hash = ?")
      .bind(await sha256Hex(token))
      .first<{ used_at: string | null }>();
    expect(link?.used_at).toBeNull();
  });
});

describe("sessions", () => {
  it("an expired session is 401 everywhere and the answer removes the cookie", async () => {
    const ws = (await createWorkspace("stale")).uid;
    const s = await signIn(ws, "admin");
    await env.DB.prepare("update sessions set expires_at = ? where user_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), s.user.id)
      .run();
    for (const res of [
      await getSession({ cookie: s.cookie }),
      await asUser(s, "GET", `/v1/workspaces/${ws}`),
      await asUser(s, "POST", `/v1/workspaces/${ws}/users`, { body: { name: "x", role: "viewer" } }),
    ]) {
      const clearing = res.headers.get("set-cookie") ?? "";
      await expectProblem(res, 401, "unauthorized");
      expect(clearing).toMatch(/^rayrun_session=;/);
      expect(clearing).toContain("Max-Age=0");
    }
    expect(await count("select count(*) as n from users where workspace_uid = ? and name = 'x'", ws)).toBe(0);
  });

  it("without a cookie GET /v1/session is 401 unauthorized", async () => {
    await expectProblem(await getSession({}), 401, "unauthorized");
    await expectProblem(await getSession({ cookie: "rayrun_session=nope" }), 401, "unauthorized");
  });

  it("DELETE /v1/session needs the CSRF token, then ends the session and clears the cookie", async () => {
    const ws = (await createWorkspace("signout")).uid;
    const s = await signIn(ws, "viewer");
    await expectProblem(await asUser(s, "DELETE", "/v1/session", { csrf: null }), 403, "csrf_failed");
    await expectProblem(await asUser(s, "DELETE", "/v1/session", { csrf: "wrong" }), 403, "csrf_failed");
    await json(await getSession({ cookie: s.cookie }), 200);
    const res = await asUser(s, "DELETE", "/v1/session");
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/^rayrun_session=;.*Max-Age=0/);
    expect(await count("select count(*) as n from sessions where user_id = ?", s.user.id)).toBe(0);
    await expectProblem(await getSession({ cookie: s.cookie }), 401, "unauthorized");
    await expectProblem(await asUser(s, "DELETE", "/v1/session"), 401, "unauthorized");
  });

  it("a cookie write without or with a wrong CSRF token is refused and stores nothing; a bearer key needs none", async () => {
    const ws = (await createWorkspace("csrf")).uid;
    const admin = await signIn(ws, "admin");
    const users = () => count("select count(*) as n from users where workspace_uid = ?", ws);
    const before = await users();
    const newUser = { body: { name: "new-user", role: "viewer" } };
    for (const csrf of [null, "", "wrong", `${admin.csrfToken}x`]) {
      await expectProblem(
        await asUser(admin, "POST", `/v1/workspaces/${ws}/users`, { ...newUser, csrf }),
        403,
        "csrf_failed",
      );
    }
    expect(await users()).toBe(before);
    await json(await asUser(admin, "POST", `/v1/workspaces/${ws}/users`, newUser), 201);
    expect(await users()).toBe(before + 1);
    // The bearer key wins over a cookie, and needs no CSRF token.
    const { key } = await createKey(ws, ["admin"], "keyholder");
    const viewer = await signIn(ws, "viewer");
    const res = await call("POST", `/v1/workspaces/${ws}/users`, {
      key,
      body: { name: "by-key", role: "viewer" },
      headers: { cookie: viewer.cookie },
    });
    expect((await json<{ user: { createdBy: string } }>(res, 201)).user.createdBy).toBe("keyholder");
  });
});

async function accessJwt(
  claims: { email?: string; iss?: string; aud?: string; exp?: number },
  key?: CryptoKey,
) {
  const signing = key ?? ((await importJWK(env.TEST_ACCESS_KEY, "RS256")) as CryptoKey);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims.email === undefined ? {} : { email: claims.email })
    .setProtectedHeader({ alg: "RS256", kid: "test" })
    .setIssuer(claims.iss ?? ACCESS_TEAM)
    .setAudience(claims.aud ?? ACCESS_AUD)
    .setIssuedAt(now - 60)
    .setExpirationTime(claims.exp ?? now + 300)
    .sign(signing);
}

const withAccess = (jwt: string, query = "") =>
  exports.default.fetch(`http://rayrun.test/v1/session${query}`, {
    headers: { "cf-access-jwt-assertion": jwt },
  });

describe("Cloudflare Access", () => {
  it("a valid Access JWT whose email is invited starts a session and sets the cookie", async () => {
    const ws = (await createWorkspace("access")).uid;
    const email = `ada-${crypto.randomUUID()}@example.com`;
    const invited = await invite(ws, "editor", "ada", email);
    const res = await withAccess(await accessJwt({ email: email.toUpperCase() }));
    const cookie = sessionCookie(res);
    const session = await json<Session>(res, 200);
    expect(session.user).toEqual({ id: invited.user.id, name: "ada", email, role: "editor" });
    expect(cookie).not.toBeNull();
    expect(await json<Session>(await getSession({ cookie: cookie ?? "" }), 200)).toEqual(session);
  });

  it("an email invited in two workspaces signs in to the one ?workspace= names", async () => {
    const a = (await createWorkspace("a")).uid;
    const b = (await createWorkspace("b")).uid;
    const email = `two-${crypto.randomUUID()}@example.com`;
    await invite(a, "viewer", "two", email);
    await invite(b, "admin", "two", email);
    const jwt = await accessJwt({ email });
    expect((await json<Session>(await withAccess(jwt, `?workspace=${b}`), 200)).workspace).toBe(b);
    expect((await json<Session>(await withAccess(jwt, `?workspace=${a}`), 200)).workspace).toBe(a);
  });

  it("wrong audience, wrong issuer, expired, foreign key, no or unknown email: 401, no session", async () => {
    const ws = (await createWorkspace("access-refused")).uid;
    const email = `bob-${crypto.randomUUID()}@example.com`;
    const invited = await invite(ws, "admin", "bob", email);
    const foreign = (await generateKeyPair("RS256")).privateKey;
    const refused = [
      await accessJwt({ email, aud: "another-app" }),
      await accessJwt({ email, iss: "https://other.cloudflareaccess.com" }),
      await accessJwt({ email, exp: Math.floor(Date.now() / 1000) - 120 }),
      await accessJwt({ email }, foreign),
      await accessJwt({}),
      await accessJwt({ email: `nobody-${crypto.randomUUID()}@example.com` }),
      "not.a.jwt",
    ];
    for (const jwt of refused) {
      const res = await withAccess(jwt);
      expect(res.headers.get("set-cookie")).toBeNull();
      await expectProblem(res, 401, "unauthorized");
    }
    expect(await count("select count(*) as n from sessions where user_id = ?", invited.user.id)).toBe(0);
  });
});
