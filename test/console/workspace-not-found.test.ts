// A workspace address that is not the signed-in user's, in Chromium: the console says there is no such
// workspace (the same words whether it exists or not), leads back to the user's own, and shows no
// frame of the user's workspace around it, on the workspace's pages and below them.
import { afterAll, describe, expect, it } from "vitest";
import { invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-workspace-not-found");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe("an unknown workspace in the console", () => {
  it("says there is no such workspace and links back to the user's own", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(browser(), await invite(key, ws, "lost-admin", "admin"));
    closers.push(() => context.close());

    for (const path of [
      "/w/ws_doesnotexist",
      "/w/ws_doesnotexist/logs",
      "/w/ws_doesnotexist/files/lib%2Fa.ts",
    ]) {
      await page.goto(`${serverUrl()}${path}`);
      await page.getByRole("heading", { level: 1, name: "No such workspace" }).waitFor();
      const text = (await page.locator("body").textContent()) ?? "";
      expect(text, path).toContain("ws_doesnotexist");
      expect(text, path).not.toContain("may not do this");
      // The frame of the signed-in workspace (its name, its navigation) is not around the answer.
      expect(await page.locator(".workspace-pill").count(), path).toBe(0);
      expect(await page.getByRole("navigation", { name: "Workspace" }).count(), path).toBe(0);
      expect(await page.locator(".problem").count(), path).toBe(0);
    }
    await screenshot(page, "workspace-not-found", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "workspace-not-found", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);

    await page.getByRole("link", { name: "Go to your workspace" }).click();
    await page.waitForURL(`${serverUrl()}/w/${ws}`);
    await page.getByRole("heading", { level: 1, name: "Services" }).waitFor();
    expect(await page.locator(".workspace-pill").textContent()).toContain(ws);
  });
});
