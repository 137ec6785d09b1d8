// The Approvals page in Chromium on the demo workspace: a tool adapter that holds calls for a human,
// called through the gateway with the official MCP SDK client, fills the list (tool, reason, bound
// arguments, revision, requester, age); a call made while the page is open shows up without a reload;
// Approve and Deny ask first, then the row leaves the list and the API records the decision. The list
// polls only while the tab is visible, and a failed load shows the problem.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";
import { type Approval, deployHoldingEcho, heldCall } from "./held-call.ts";

const browser = useBrowser();
const demo = useDemo("console-approvals");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const approvalsWith = async (ws: string, key: string, status: string) =>
  (
    await apiCall<{ items: Approval[] }>(key, "GET", `/v1/workspaces/${ws}/approvals?status=${status}`)
  ).items.map((a) => a.id);

const rowOf = (page: Page, id: string) => page.locator(`[data-approval-id="${id}"]`);

let revision = "";
beforeAll(async () => {
  const { workspace: ws, key } = demo();
  revision = await deployHoldingEcho(ws, key, await demoTool(demo(), "echo"));
});

describe("the Approvals page", () => {
  it("lists pending approvals, picks up new ones without a reload, and approves or denies after asking", async () => {
    const { workspace: ws, key } = demo();
    const first = await heldCall(ws, key, "approve:ship it");
    const { context, page } = await signedIn(browser(), await invite(key, ws, "approvals-admin", "admin"));
    closers.push(() => context.close());

    // Reached from the workspace navigation.
    await page
      .getByRole("navigation", { name: "Workspace" })
      .getByRole("link", { name: "Approvals" })
      .click();
    await page.getByRole("heading", { level: 1, name: "Approvals" }).waitFor();
    const table = page.getByRole("table", { name: "Pending approvals" });
    await rowOf(page, first).waitFor();
    const row = await rowOf(page, first).textContent();
    expect(row).toContain("echo");
    expect(row).toContain("Echoing needs a human");
    // The bound arguments: what an approved repeat must send unchanged.
    expect(row).toContain('"text": "ship it"');
    expect(row).toContain(`rev_…${revision.slice(-6)}`);
    expect(row).toContain("demo-admin");
    expect(row).toMatch(/(now|second|minute)/);
    const violations = (await axeViolations(page)).filter(
      (v) => v.impact === "serious" || v.impact === "critical",
    );
    expect(violations, describeViolations(violations)).toEqual([]);

    // A call held while the page is open appears without a reload.
    const second = await heldCall(ws, key, "approve:second");
    await rowOf(page, second).waitFor({ timeout: 20_000 });
    await screenshot(page, "approvals", "desktop");

    // Approve asks first; Cancel leaves the approval pending.
    await rowOf(page, first)
      .getByRole("button", { name: /^Approve/ })
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("ship it").first().waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await approvalsWith(ws, key, "pending")).toContain(first);

    await rowOf(page, first)
      .getByRole("button", { name: /^Approve/ })
      .click();
    await page.getByRole("dialog").getByRole("button", { name: "Approve call" }).click();
    await rowOf(page, first).waitFor({ state: "detached" });
    await page.getByRole("status").filter({ hasText: "Approved" }).waitFor();
    expect(await approvalsWith(ws, key, "approved")).toContain(first);

    await rowOf(page, second).getByRole("button", { name: /^Deny/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Deny call" }).click();
    await rowOf(page, second).waitFor({ state: "detached" });
    expect(await approvalsWith(ws, key, "denied")).toContain(second);

    // Nothing pending: the empty state.
    await page.getByText("No calls are waiting for approval.").waitFor();
    expect(await table.count()).toBe(0);
  });

  it("polls only while the tab is visible", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(browser(), await invite(key, ws, "approvals-poll", "editor"));
    closers.push(() => context.close());
    let loads = 0;
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === `/v1/workspaces/${ws}/approvals`) loads += 1;
    });
    await page.goto(`${serverUrl()}/w/${ws}/approvals`);
    await page.getByRole("heading", { level: 1, name: "Approvals" }).waitFor();
    await expect.poll(() => loads, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);

    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      Object.defineProperty(document, "hidden", { value: true, configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    const hiddenAt = loads;
    await page.waitForTimeout(12_000);
    expect(loads).toBe(hiddenAt);

    // Back in view: it loads at once, so the list is fresh.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
      Object.defineProperty(document, "hidden", { value: false, configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await expect.poll(() => loads, { timeout: 2_000 }).toBeGreaterThan(hiddenAt);
  });

  it("shows a failed load as a problem, at the phone width too", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(
      browser(),
      await invite(key, ws, "approvals-broken", "admin"),
      VIEWPORTS.phone,
    );
    closers.push(() => context.close());
    await page.route(
      (url) => url.pathname === `/v1/workspaces/${ws}/approvals`,
      (route) =>
        route.fulfill({
          status: 503,
          contentType: "application/problem+json",
          body: JSON.stringify({ code: "unavailable", title: "Service unavailable", detail: "Try later." }),
        }),
    );
    await page.goto(`${serverUrl()}/w/${ws}/approvals`);
    await page.locator(".problem").filter({ hasText: "Service unavailable" }).waitFor();
    await screenshot(page, "approvals-problem", "phone");
  });
});
