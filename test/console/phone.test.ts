// The console at a phone's width (390 px), in Chromium on the demo workspace: the workspace navigation
// is a menu behind a button (aria-expanded, keyboard, Escape), every destination is reachable through
// it, the workspace id is shown, no page scrolls sideways, and a table's last columns (status, actions)
// are on screen as stacked rows.
import type { Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-phone");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const DESTINATIONS = [
  { link: "Services", heading: "Services", path: "" },
  { link: "Files", heading: "Files", path: "/files" },
  { link: "Logs", heading: "Logs", path: "/logs" },
  { link: "Approvals", heading: "Approvals", path: "/approvals" },
  { link: "LLM hook & plugins", heading: "LLM hook & plugins", path: "/llm" },
  { link: "Keys", heading: "API keys", path: "/settings/keys" },
  { link: "Users", heading: "Users", path: "/settings/users" },
  { link: "Secrets", heading: "Secrets", path: "/settings/secrets" },
];

/** How far the document is wider than the viewport (0 when nothing scrolls sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Whether the element is shown and lies wholly inside the viewport's width. */
async function onScreen(locator: Locator): Promise<boolean> {
  if (!(await locator.isVisible())) return false;
  const box = await locator.boundingBox();
  return box !== null && box.x >= 0 && box.x + box.width <= VIEWPORTS.phone.width;
}

describe("the console at a phone's width", () => {
  it("puts the navigation in a menu that reaches every page, shows the workspace, and never scrolls sideways", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(
      browser(),
      await invite(key, ws, "phone-admin", "admin"),
      VIEWPORTS.phone,
    );
    closers.push(() => context.close());
    await page.getByRole("heading", { level: 1, name: "Services" }).waitFor();

    // The workspace id is shown whole.
    const workspace = page.getByTestId("workspace-id");
    expect(await workspace.isVisible()).toBe(true);
    expect(await workspace.textContent()).toContain(ws);
    expect(await workspace.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await onScreen(workspace)).toBe(true);

    const menu = page.getByRole("button", { name: "Menu" });
    const nav = page.getByRole("navigation", { name: "Workspace" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.isVisible()).toBe(false);

    for (const { link, heading, path } of DESTINATIONS) {
      await menu.click();
      expect(await menu.getAttribute("aria-expanded"), link).toBe("true");
      const target = nav.getByRole("link", { name: link, exact: true });
      expect(await onScreen(target), link).toBe(true);
      await target.click();
      await page.waitForURL(`${serverUrl()}/w/${ws}${path}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      // Following a link closes the menu.
      expect(await menu.getAttribute("aria-expanded"), link).toBe("false");
      await page.waitForLoadState("networkidle");
      expect(await overflow(page), link).toBeLessThanOrEqual(0);
    }

    // Keyboard: Enter opens, Tab reaches the links, Escape closes and gives the focus back to the button.
    await menu.focus();
    await page.keyboard.press("Enter");
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await screenshot(page, "menu-open", "phone");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(() => document.activeElement?.closest("nav")?.getAttribute("aria-label")),
    ).toBe("Workspace");
    await page.keyboard.press("Escape");
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.isVisible()).toBe(false);
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it("shows every column of a table, status and actions included, as stacked rows", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(
      browser(),
      await invite(key, ws, "phone-tables", "admin"),
      VIEWPORTS.phone,
    );
    closers.push(() => context.close());

    await page.goto(`${serverUrl()}/w/${ws}/settings/keys`);
    const keys = page.getByRole("table", { name: "Keys" });
    const keyRow = keys.locator("tbody tr").first();
    await keyRow.waitFor();
    expect(await onScreen(keyRow.getByText("Active", { exact: true }))).toBe(true);
    expect(await onScreen(keyRow.getByRole("button", { name: /^Revoke/ }))).toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "keys-stacked", "phone");

    await page.goto(`${serverUrl()}/w/${ws}/settings/users`);
    const userRow = page.getByRole("table", { name: "Users" }).locator("tbody tr").first();
    await userRow.waitFor();
    expect(await onScreen(userRow.getByRole("button", { name: /^Remove/ }))).toBe(true);
    expect(await onScreen(userRow.getByRole("combobox"))).toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);

    await page.goto(`${serverUrl()}/w/${ws}`);
    const serviceRow = page.getByRole("table").first().locator("tbody tr").first();
    await serviceRow.waitFor();
    expect(await onScreen(serviceRow.getByRole("button").last())).toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
  });
});
