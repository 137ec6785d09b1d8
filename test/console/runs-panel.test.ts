// The Hooks tab's Runs panel, in Chromium on the demo workspace: after a call through the gateway, the
// tool's Deploy view lists that call's active stages (the request id the logs recorded), and its links
// open the logs page filtered to this tool.
import { afterAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";
import { callTool } from "./mcp.ts";

const browser = useBrowser();
const demo = useDemo("console-runs-panel");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

interface RunRow {
  requestId: string;
  channel: string;
  toolUid: string | null;
}

describe("the Hooks tab's Runs panel", () => {
  it("lists the tool's latest runs on real calls and links to its logs", async () => {
    const d = demo();
    await callTool(d.workspace, d.key, "search_release_notes", { query: "runs panel" });
    // Run records are written after the response: wait until the call's are there.
    const latestRun = async () =>
      (
        await apiCall<{ items: RunRow[] }>(
          d.key,
          "GET",
          `/v1/workspaces/${d.workspace}/hooks/logs?tool=${d.tool}&limit=1`,
        )
      ).items[0];
    await expect.poll(latestRun, { timeout: 15_000 }).toBeDefined();
    const latest = await latestRun();
    expect(latest?.channel).toBe("active");

    const { context, page } = await signedIn(
      browser(),
      await invite(d.key, d.workspace, "runs-viewer", "viewer"),
    );
    closers.push(() => context.close());
    await page.goto(`${serverUrl()}/w/${d.workspace}/tools/${d.tool}?view=deploy`);
    const panel = page.getByRole("region", { name: "Runs" });
    const table = panel.getByRole("table");
    await table.waitFor();
    expect(await table.textContent()).toContain((latest?.requestId ?? "").slice(0, 8));
    expect(await table.getByText("active", { exact: true }).count()).toBeGreaterThan(0);
    await screenshot(page, "hooks-runs", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "hooks-runs", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);

    await panel.getByRole("link", { name: "All runs of this tool in the logs" }).click();
    await page.waitForURL((url) => url.pathname.endsWith("/logs") && url.searchParams.get("tool") === d.tool);
  });
});
