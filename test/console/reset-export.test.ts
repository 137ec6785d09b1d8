// The reset zone offers the versions' export as a downloaded file before the irreversible reset, in
// Chromium on the demo workspace: the file is the API's export document for this hook, and it holds every
// version the reset would remove.
import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-reset-export");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

interface ExportDocument {
  format: string;
  target: string;
  versions: { version: number }[];
}

describe("the reset zone", () => {
  it("offers Export versions as a downloaded file before the reset", async () => {
    const d = demo();
    const { context, page } = await signedIn(
      browser(),
      await invite(d.key, d.workspace, "exporter", "admin"),
    );
    closers.push(() => context.close());
    await page.goto(`${serverUrl()}/w/${d.workspace}/tools/${d.tool}?view=deploy`);
    const zone = page.getByRole("region", { name: "Reset" });
    const link = zone.getByRole("link", { name: /Export versions/ });
    await link.waitFor();
    // Offered before the reset control, as the step to take first.
    const [linkBox, resetBox] = await Promise.all([
      link.boundingBox(),
      zone.getByRole("button", { name: "Reset hook" }).boundingBox(),
    ]);
    expect(linkBox && resetBox && linkBox.y < resetBox.y).toBe(true);
    await screenshot(page, "reset-export", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "reset-export", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);

    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toMatch(/\.json$/);
    const saved = await download.path();
    const file = JSON.parse(await readFile(saved, "utf8")) as ExportDocument;
    const hook = `/v1/workspaces/${d.workspace}/tools/${d.tool}/hook`;
    const state = await apiCall<{ draft: { version: number } }>(d.key, "GET", hook);
    expect(file.format).toBe("rayrun.hooks/export-v1");
    expect(file.versions.map((v) => v.version)).toEqual(
      Array.from({ length: state.draft.version }, (_, i) => i + 1),
    );
  });
});
