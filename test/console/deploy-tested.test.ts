// The Deploy view reads whether a version was tested from the server, in Chromium on the demo
// workspace's adapter: a test run through the API counts in a fresh session and after a reload, a
// successful deploy shows the deployment, and a deploy refused as `not_tested` leads to the Test view
// with that version chosen. Saving source the API reformats says so.
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { type Demo, useDemo } from "./demo.ts";
import { openView, replaceSource, save } from "./editor.ts";

const browser = useBrowser();
const demo = useDemo("console-deploy-tested");
/** The page loads what it shows after it opens: time for the server on a busy machine. */
const PATIENT = { timeout: 15_000 };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const source = (tag: string) => `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: args }) => ({ action: "continue", arguments: { q: "${tag} " + args.q } }),
});
`;

/** Saves a new version of the demo adapter through the API and returns its number. */
async function saveVersion(d: Demo, tag: string): Promise<number> {
  const hook = `/v1/workspaces/${d.workspace}/tools/${d.tool}/hook`;
  const state = await apiCall<{ draft: { etag: string } }>(d.key, "GET", hook);
  const res = await fetch(`${serverUrl()}${hook}/draft`, {
    method: "PUT",
    headers: {
      authorization: `Bearer ${d.key}`,
      "content-type": "application/json",
      "if-match": state.draft.etag,
    },
    body: JSON.stringify({ source: source(tag), config: {}, note: tag }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { version: number }).version;
}

async function openAs(name: string, view: string): Promise<Page> {
  const d = demo();
  const { context, page } = await signedIn(browser(), await invite(d.key, d.workspace, name, "editor"));
  closers.push(() => context.close());
  await page.goto(`${serverUrl()}/w/${d.workspace}/tools/${d.tool}?view=${view}`);
  return page;
}

/** The Deploy view's line about the chosen version's tests. */
const testState = (page: Page) =>
  page
    .getByRole("status")
    .filter({ hasText: /passed a test|No successful test/ })
    .first();

describe("the Deploy view's test state", () => {
  it("counts a test the server holds, after a reload and once the version is deployed", async () => {
    const d = demo();
    const version = await saveVersion(d, "tested");
    const run = await apiCall<{ ok: boolean }>(
      d.key,
      "POST",
      `/v1/workspaces/${d.workspace}/tools/${d.tool}/hook/test`,
      { stage: "before", arguments: { q: "webhooks" }, version },
    );
    expect(run.ok, JSON.stringify(run)).toBe(true);

    const page = await openAs("deploy-reader", "deploy");
    await expect
      .poll(() => testState(page).textContent(), PATIENT)
      .toContain(`Version ${version} passed a test`);
    await page.reload();
    await expect
      .poll(() => testState(page).textContent(), PATIENT)
      .toContain(`Version ${version} passed a test`);
    expect(await page.getByText("No successful test").count()).toBe(0);

    await page.getByRole("radio", { name: "Shadow" }).check();
    await page.getByRole("button", { name: `Deploy version ${version} to shadow` }).click();
    await page.getByText(new RegExp(`Version ${version} is shadow as revision`)).waitFor();
    expect(await page.getByText("No successful test").count()).toBe(0);
    expect(await page.locator("#deploy-problem").count()).toBe(0);
    await screenshot(page, "deploy-tested", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "deploy-tested", "phone");
  });

  it("offers the Test view, with the version chosen, when a deploy is refused as not tested", async () => {
    const version = await saveVersion(demo(), "untested");
    const page = await openAs("deploy-untested", "deploy");
    await expect
      .poll(() => testState(page).textContent(), PATIENT)
      .toContain(`No successful test of version ${version}`);
    await page.getByRole("button", { name: `Deploy version ${version} to shadow` }).click();
    const problem = page.locator("#deploy-problem");
    await problem.waitFor();
    expect(await problem.getAttribute("data-code")).toBe("not_tested");
    await screenshot(page, "deploy-not-tested", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "deploy-not-tested", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);

    await page.getByRole("link", { name: `Test version ${version}` }).click();
    await page.waitForURL((url) => url.searchParams.get("view") === "test");
    const chosen = page.getByRole("combobox", { name: "Version to test" });
    await expect.poll(() => chosen.inputValue(), PATIENT).toBe(String(version));
  });
});

describe("saving source the API reformats", () => {
  it("says the source was formatted, and shows it as saved", async () => {
    const page = await openAs("formatting-editor", "editor");
    await openView(page, "Editor");
    await page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    await replaceSource(
      page,
      'export default defineToolAdapter({apiVersion:"rayrun.hooks/v1",before:({arguments:args})=>({action:"continue",arguments:{q:args.q}})});\n',
    );
    await save(page, "unformatted");
    const notice = page.getByRole("status").filter({ hasText: "formatted the source with Prettier" });
    await notice.waitFor();
    const shown = await page.getByRole("textbox", { name: /Adapter source for/ }).textContent();
    expect(shown).toContain('apiVersion: "rayrun.hooks/v1",');
    await screenshot(page, "editor-reformatted", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "editor-reformatted", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);

    // Already formatted (the saved source, a comment added): saved as sent, no notice.
    const d = demo();
    const saved = await apiCall<{ draft: { source: string } }>(
      d.key,
      "GET",
      `/v1/workspaces/${d.workspace}/tools/${d.tool}/hook`,
    );
    await replaceSource(page, `// Formatted already.\n${saved.draft.source}`);
    await save(page, "formatted");
    expect(await notice.count()).toBe(0);
  });
});

describe("unsaved edits", () => {
  it("says Unsaved changes once on the page, and the editor's status names the version they start from", async () => {
    const page = await openAs("unsaved-once", "editor");
    await openView(page, "Editor");
    await page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    const d = demo();
    const saved = await apiCall<{ draft: { source: string; version: number } }>(
      d.key,
      "GET",
      `/v1/workspaces/${d.workspace}/tools/${d.tool}/hook`,
    );
    await replaceSource(page, `// An edit not saved yet.\n${saved.draft.source}`);
    const said = page.getByText("Unsaved changes", { exact: true });
    await expect.poll(() => said.count(), PATIENT).toBe(1);
    expect(await page.locator(".save-state").textContent()).toBe(
      `Editing from version ${saved.draft.version}`,
    );
  });
});
