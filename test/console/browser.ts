// Debian's Chromium driven by playwright-core: one browser per test file, a context per user, and the
// helpers every console test shares (signing in through a real invite link, screenshots).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

/** Where `.ci/run` (apt-get install chromium) puts it; CHROMIUM_PATH overrides. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(import.meta.dirname, "..", "..", "test-results", "console");

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export type Role = "admin" | "editor" | "viewer";

/** Launches Chromium for the file's tests and closes it after them. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("the browser starts in beforeAll");
    return browser;
  };
}

// Typed here: the provided context is declared beside the server's global setup (test/cli).
export const serverUrl = (): string => inject("serverUrl");

/** A request to the API with a key, as the CLI would make it. */
export async function apiCall<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${serverUrl()}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Invites a user into the workspace with an admin key and returns the one-time sign-in link. */
export async function invite(adminKey: string, ws: string, name: string, role: Role): Promise<string> {
  const created = await apiCall<{ signIn: { url: string } }>(adminKey, "POST", `/v1/workspaces/${ws}/users`, {
    name,
    role,
  });
  return created.signIn.url;
}

/**
 * A browser context signed in as a newly invited user: opens the link like a person would and waits
 * for the console to show them signed in. Every request the page makes is recorded, so tests can
 * check that nothing leaves the server's origin.
 */
export async function signedIn(
  browser: Browser,
  link: string,
  viewport: { width: number; height: number } = VIEWPORTS.desktop,
): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  const context = await browser.newContext({ viewport, reducedMotion: "reduce" });
  const page = await context.newPage();
  const requests: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  await page.goto(link);
  // Attached, not visible: at the phone width the user's name is inside the closed menu.
  await page.getByTestId("current-user").waitFor({ state: "attached" });
  return { context, page, requests };
}

/** A full-page screenshot under test-results/console/<name>-<viewport>.png. */
export async function screenshot(
  page: Page,
  name: string,
  viewport: keyof typeof VIEWPORTS,
): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}-${viewport}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
