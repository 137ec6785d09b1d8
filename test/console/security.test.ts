// Sessions in a real browser: the cookie's attributes, CSRF on every write, and roles enforced by the
// API for a session (not only by the page hiding controls).
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { invite, signedIn, useBrowser } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-security");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function as(role: "admin" | "editor" | "viewer", name: string) {
  const session = await signedIn(browser(), await invite(demo().key, demo().workspace, name, role));
  closers.push(() => session.context.close());
  return session;
}

/** A fetch made by the page itself (its cookie, its origin), with optional extra headers. */
async function pageFetch(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return page.evaluate(
    async (init) => {
      const res = await fetch(init.path, {
        method: init.method,
        credentials: "same-origin",
        headers: { "content-type": "application/json", ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return {
        status: res.status,
        etag: res.headers.get("etag"),
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
    },
    { method, path, body, headers },
  );
}

async function csrfToken(page: Page): Promise<string> {
  const { body } = await pageFetch(page, "GET", "/v1/session");
  return String(body.csrfToken);
}

describe("console sessions", () => {
  it("sets an HttpOnly, SameSite=Strict session cookie (not Secure on a loopback address)", async () => {
    const { context, page } = await as("viewer", "cookie-viewer");
    const cookies = await context.cookies();
    const cookie = cookies.find((c) => c.name === "rayrun_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false, path: "/" });
    expect(cookie?.expires).toBeGreaterThan(Date.now() / 1000);
    // HttpOnly: the page's scripts never see it.
    expect(await page.evaluate(() => document.cookie)).not.toContain("rayrun_session");
  });

  it("refuses a write without the CSRF token, or with a wrong one, and stores nothing", async () => {
    const { page } = await as("editor", "csrf-editor");
    const hook = `/v1/workspaces/${demo().workspace}/tools/${await demoTool(demo(), "echo")}/hook`;
    const before = await pageFetch(page, "GET", hook);
    const save = { source: "export default defineToolAdapter({ apiVersion: 'rayrun.hooks/v1' });" };
    const ifMatch = { "if-match": String(before.etag) };

    const missing = await pageFetch(page, "PUT", `${hook}/draft`, save, ifMatch);
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe("csrf_failed");
    const wrong = await pageFetch(page, "PUT", `${hook}/draft`, save, {
      ...ifMatch,
      "x-csrf-token": "not-the-token",
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("csrf_failed");
    expect((await pageFetch(page, "GET", hook)).etag).toBe(before.etag);

    const right = await pageFetch(page, "PUT", `${hook}/draft`, save, {
      ...ifMatch,
      "x-csrf-token": await csrfToken(page),
    });
    expect(right.status).toBe(200);
  });

  it("lets a viewer read but not save: the API refuses the session, whatever the page shows", async () => {
    const { page } = await as("viewer", "readonly-viewer");
    const hook = `/v1/workspaces/${demo().workspace}/tools/${await demoTool(demo(), "echo")}/hook`;
    const read = await pageFetch(page, "GET", hook);
    expect(read.status).toBe(200);
    const save = await pageFetch(
      page,
      "PUT",
      `${hook}/draft`,
      { source: "export default defineToolAdapter({ apiVersion: 'rayrun.hooks/v1' });" },
      { "if-match": String(read.etag), "x-csrf-token": await csrfToken(page) },
    );
    expect(save.status).toBe(403);
    expect(save.body.code).toBe("forbidden");
    expect((await pageFetch(page, "GET", hook)).etag).toBe(read.etag);
  });

  it("keeps admin routes from an editor's session", async () => {
    const { page } = await as("editor", "no-admin-editor");
    const token = await csrfToken(page);
    const users = await pageFetch(page, "GET", `/v1/workspaces/${demo().workspace}/users`);
    expect(users.status).toBe(403);
    const key = await pageFetch(
      page,
      "POST",
      `/v1/workspaces/${demo().workspace}/keys`,
      { scopes: ["hooks:read"] },
      { "x-csrf-token": token },
    );
    expect(key.status).toBe(403);
  });

  it("signs out: the session ends on the server, and its cookie no longer works", async () => {
    const { context, page } = await as("viewer", "leaving-viewer");
    const cookie = (await context.cookies()).find((c) => c.name === "rayrun_session");
    const out = await pageFetch(page, "DELETE", "/v1/session", undefined, {
      "x-csrf-token": await csrfToken(page),
    });
    expect(out.status).toBe(204);
    expect((await pageFetch(page, "GET", "/v1/session")).status).toBe(401);
    // Replaying the old cookie value does not bring the session back.
    if (!cookie) throw new Error("signed in without a session cookie");
    await context.addCookies([cookie]);
    expect((await pageFetch(page, "GET", "/v1/session")).status).toBe(401);
  });
});
