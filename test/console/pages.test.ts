// Every page, as an admin sees it (and the signed-out ones), at a desktop and a phone width: it renders
// without a problem box, does not scroll sideways, has no serious or critical violation of axe-core's
// WCAG A/AA rules, loads nothing from outside the server, and is captured as a screenshot under
// test-results/console/ (the review looks at them).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { describeViolations, axeViolations } from "./axe.ts";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { type Demo, demoTool, useDemo } from "./demo.ts";
import { deployHoldingEcho, heldCall } from "./held-call.ts";

const browser = useBrowser();
const demo = useDemo("console-pages");
let pages: { name: string; path: string }[] = [];
let link: () => Promise<string>;

beforeAll(async () => {
  const d: Demo = demo();
  const base = `/w/${d.workspace}`;
  const { items: services } = await apiCall<{ items: { uid: string }[] }>(
    d.key,
    "GET",
    `/v1/workspaces/${d.workspace}/services`,
  );
  const service = services[0]?.uid ?? "";
  pages = [
    { name: "services", path: base },
    { name: "service-tools", path: `${base}/services/${service}` },
    { name: "hooks-editor", path: `${base}/tools/${d.tool}` },
    { name: "hooks-test", path: `${base}/tools/${d.tool}?view=test` },
    { name: "hooks-versions", path: `${base}/tools/${d.tool}?view=versions` },
    { name: "hooks-deploy", path: `${base}/tools/${d.tool}?view=deploy` },
    { name: "files", path: `${base}/files` },
    { name: "file", path: `${base}/files/${encodeURIComponent("lib/request-policy.ts")}` },
    { name: "logs", path: `${base}/logs` },
    { name: "approvals", path: `${base}/approvals` },
    { name: "llm", path: `${base}/llm` },
    { name: "keys", path: `${base}/settings/keys` },
    { name: "users", path: `${base}/settings/users` },
    { name: "secrets", path: `${base}/settings/secrets` },
    { name: "not-found", path: `${base}/no-such-page` },
  ];
  // A call waiting for approval, so the Approvals page shows a row rather than its empty state.
  await deployHoldingEcho(d.workspace, d.key, await demoTool(d, "echo"));
  await heldCall(d.workspace, d.key, "approve:screenshot");
  let n = 0;
  link = () => invite(d.key, d.workspace, `pages-admin-${n++}`, "admin");
});

/** How far the document is wider than the viewport: more than 0 scrolls the whole page sideways. */
const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const sessions: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of sessions) await close();
});

// The two widths run side by side, each in its own browser context (a minute less than one after the other).
describe.concurrent.each(Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[])(
  "console pages at the %s width",
  (viewport) => {
    it("render every main page without problems, off-server requests or axe violations", async ({
      expect,
    }) => {
      const { context, page, requests } = await signedIn(browser(), await link(), VIEWPORTS[viewport]);
      sessions.push(() => context.close());
      const origin = new URL(serverUrl()).origin;
      for (const { name, path } of pages) {
        await page.goto(`${serverUrl()}${path}`);
        await page.waitForLoadState("networkidle");
        await page.locator("h1").first().waitFor();
        await expect.poll(() => page.locator("[aria-busy=true]").count(), { message: name }).toBe(0);
        expect(await page.locator(".problem").allTextContents(), name).toEqual([]);
        if (name !== "not-found")
          expect(await page.locator("h1").first().textContent(), name).not.toBe("Page not found");
        expect(await sidewaysScroll(page), name).toBeLessThanOrEqual(0);
        await screenshot(page, name, viewport);
        // At both widths: the phone layout moves the navigation and wraps the forms.
        const violations = (await axeViolations(page)).filter(
          (v) => v.impact === "serious" || v.impact === "critical",
        );
        expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
      }
      const offServer = requests.filter(
        (url) => !url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:"),
      );
      expect(offServer).toEqual([]);
    });

    it("render the signed-out pages", async ({ expect }) => {
      const context = await browser().newContext({ viewport: VIEWPORTS[viewport], reducedMotion: "reduce" });
      sessions.push(() => context.close());
      const page = await context.newPage();
      const signedOut = [
        { name: "sign-in", path: "/sign-in" },
        { name: "signed-out", path: "/signed-out" },
        // A signed-in page opened without a session asks for a sign-in link.
        { name: "sign-in-required", path: "/w/any-workspace/logs" },
      ];
      for (const { name, path } of signedOut) {
        await page.goto(`${serverUrl()}${path}`);
        await page.locator("h1").first().waitFor();
        await page.waitForLoadState("networkidle");
        expect(await sidewaysScroll(page), name).toBeLessThanOrEqual(0);
        await screenshot(page, name, viewport);
        const violations = (await axeViolations(page)).filter(
          (v) => v.impact === "serious" || v.impact === "critical",
        );
        expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
      }
    });
  },
);
