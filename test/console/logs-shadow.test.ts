// The logs page with a shadow-only adapter, in Chromium on the demo workspace: the demo's echo tool
// gets an adapter deployed to shadow alone and is called once, so its shadow run differs from the
// call that no active hook touched. At 1280 px every column of the runs table is in view, the open
// shadow run says that no active hook ran, and the Tool filter takes the tool's name.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";
import { callTool } from "./mcp.ts";

const browser = useBrowser();
const demo = useDemo("console-logs-shadow");
/** The page loads what it shows after it opens: time for the server on a busy machine. */
const PATIENT = { timeout: 15_000 };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const SHOUT = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: args }) => ({ action: "continue", arguments: { text: args.text.toUpperCase() } }),
});
`;

beforeAll(async () => {
  const { workspace: ws, key } = demo();
  const hook = `/v1/workspaces/${ws}/tools/${await demoTool(demo(), "echo")}/hook`;
  const state = await apiCall<{ draft: { etag: string } }>(key, "GET", hook);
  const res = await fetch(`${serverUrl()}${hook}/draft`, {
    method: "PUT",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "if-match": state.draft.etag,
    },
    body: JSON.stringify({
      source: SHOUT,
      config: {},
      note: "shout in shadow",
    }),
  });
  if (!res.ok) throw new Error(`saving the adapter: ${res.status} ${await res.text()}`);
  await apiCall(key, "POST", `${hook}/test`, {
    stage: "before",
    arguments: { text: "hi" },
    version: 1,
  });
  await apiCall(key, "POST", `${hook}/deployments`, {
    version: 1,
    channel: "shadow",
  });
  // The client gets the upstream's own answer: no active hook changes it.
  const answer = await callTool(ws, key, "echo", { text: "hello" });
  if (answer !== "hello") throw new Error(`echo answered ${answer}`);
  // And one call of the demo's active adapter, so the table holds runs of two tools.
  await callTool(ws, key, "search_release_notes", { query: "webhooks" });
});

/** The runs table's rows once the shadow run of the echo call is listed (records land just after the call). */
async function shadowListed(page: Page): Promise<void> {
  const rows = page.getByRole("table", { name: "Stage runs" }).locator("tr[data-run-id]");
  await expect
    .poll(
      async () => {
        await page.getByRole("button", { name: "Reload" }).click();
        await page.waitForLoadState("networkidle");
        return rows.filter({ hasText: "echo" }).filter({ hasText: "shadow" }).count();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBeGreaterThan(0);
}

async function openLogs(name: string, query = ""): Promise<Page> {
  const { workspace: ws, key } = demo();
  const { context, page } = await signedIn(browser(), await invite(key, ws, name, "admin"));
  closers.push(() => context.close());
  await page.goto(`${serverUrl()}/w/${ws}/logs${query}`);
  return page;
}

describe("the logs page with a shadow-only adapter", () => {
  it("shows every column of the runs table at 1280 px", async () => {
    const page = await openLogs("logs-width");
    await shadowListed(page);
    const wrap = await page.getByRole("region", { name: "Stage runs" }).boundingBox();
    const header = await page.getByRole("columnheader", { name: "Shadow differed" }).boundingBox();
    expect(wrap).not.toBeNull();
    expect(header).not.toBeNull();
    if (!wrap || !header) return;
    expect(header.x + header.width).toBeLessThanOrEqual(wrap.x + wrap.width + 0.5);
    expect(header.x + header.width).toBeLessThanOrEqual(VIEWPORTS.desktop.width);
    // Nothing to scroll sideways: the table fits its box.
    const overflow = await page
      .getByRole("region", { name: "Stage runs" })
      .evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, "logs-columns", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "logs-columns", "phone");
  });

  it("says no active hook ran for a shadow run of a tool with no active revision", async () => {
    // The before stage differed (the shadow revision rewrote the arguments); after passed through alike.
    const page = await openLogs("logs-shadow", "?channel=shadow&stage=before");
    await shadowListed(page);
    await page
      .getByRole("table", { name: "Stage runs" })
      .locator("tr[data-run-id]")
      .filter({ hasText: "echo" })
      .filter({ hasText: "differed" })
      .first()
      .getByRole("link", { name: /: open run / })
      .click();
    const detail = page.locator("#run-detail");
    await detail.getByRole("heading", { name: "Active" }).waitFor();
    const active = detail.locator(".compare > div").first();
    await expect.poll(() => active.textContent(), PATIENT).toContain("No active hook ran");
    expect(await active.textContent()).not.toContain("expired");
    await screenshot(page, "logs-shadow-no-active", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "logs-shadow-no-active", "phone");
  });

  it("filters by a tool's name, offering the workspace's tools", async () => {
    const page = await openLogs("logs-tool-name");
    await shadowListed(page);
    const tool = page.getByRole("combobox", { name: "Tool", exact: true });
    const offered = await tool.evaluate((input) =>
      input instanceof HTMLInputElement && input.list
        ? [...input.list.options].map((option) => option.value)
        : [],
    );
    expect(offered).toEqual(expect.arrayContaining(["echo", "search_release_notes"]));
    await tool.fill("echo");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL((url) => url.searchParams.get("tool") === "echo");
    const rows = page.getByRole("table", { name: "Stage runs" }).locator("tr[data-run-id]");
    // The page keeps the unfiltered rows until the filtered ones arrive.
    await expect.poll(() => rows.filter({ hasText: "search_release_notes" }).count(), PATIENT).toBe(0);
    expect(await rows.filter({ hasText: "echo" }).count()).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(() => tool.inputValue(), PATIENT).toBe("echo");

    // A link that names the tool by its uid shows the name.
    const uid = await demoTool(demo(), "echo");
    await page.goto(`${serverUrl()}/w/${demo().workspace}/logs?tool=${uid}`);
    await expect.poll(() => tool.inputValue(), PATIENT).toBe("echo");
    await screenshot(page, "logs-tool-filter", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "logs-tool-filter", "phone");
  });
});
