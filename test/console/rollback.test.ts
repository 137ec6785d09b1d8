// Rolling back and reading fuel, in Chromium on the demo workspace: a rollback asks first (Cancel changes
// nothing) and then says what it did, naming the revision now active and the one it replaced; the fuel a
// run used reads in whole, English-grouped units ("411,961 fuel") in the test console and in the logs,
// whatever the browser's locale (the API's fractional count read like thousands: "411.961").
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../cli/api.ts";
import { apiCall, invite, screenshot, serverUrl, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";
import { runTest } from "./editor.ts";
import { callTool } from "./mcp.ts";

const browser = useBrowser();
const demo = useDemo("console-rollback");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

interface Revision {
  id: string;
  version: number;
}
interface Deployments {
  active: { revisionId: string } | null;
}

const hookPath = () => `/v1/workspaces/${demo().workspace}/tools/${demo().tool}/hook`;
const activeRevision = async () =>
  (await apiCall<{ deployments: Deployments }>(demo().key, "GET", hookPath())).deployments.active?.revisionId;

/** A German-locale browser signed in as a new admin. */
async function signedInGerman(name: string): Promise<Page> {
  const { workspace: ws, key } = demo();
  const context = await browser().newContext({
    viewport: VIEWPORTS.desktop,
    locale: "de-DE",
    reducedMotion: "reduce",
  });
  closers.push(() => context.close());
  const page = await context.newPage();
  await page.goto(await invite(key, ws, name, "admin"));
  await page.getByTestId("current-user").waitFor({ state: "attached" });
  return page;
}

let first: Revision | undefined;
let second: Revision | undefined;
beforeAll(async () => {
  // The seeded adapter is version 1, active; a second version goes active on top of it.
  const { key } = demo();
  const hook = hookPath();
  const { data, headers } = await api<{ draft: { source: string } }>(key, "GET", hook);
  const source = data.draft.source.replace("Preparing search", "Preparing the search");
  const saved = await api<{ version: number }>(
    key,
    "PUT",
    `${hook}/draft`,
    { source },
    { "if-match": headers.get("etag") ?? "" },
  );
  await api(key, "POST", `${hook}/test`, { stage: "before", arguments: { query: "x" } });
  await api(key, "POST", `${hook}/deployments`, { version: saved.data.version, channel: "active" });
  const revisions = await apiCall<{ items: Revision[] }>(key, "GET", `${hook}/revisions`);
  second = revisions.items.find((r) => r.version === saved.data.version);
  first = revisions.items.find((r) => r.version < saved.data.version);
});

const short = (id: string) => `rev_…${id.slice(-6)}`;

describe("rollback and fuel", () => {
  it("asks before a rollback and says what it did", async () => {
    if (!first || !second) throw new Error("the setup deploys two revisions");
    const page = await signedInGerman("rollback-admin");
    await page.goto(`${serverUrl()}/w/${demo().workspace}/tools/${demo().tool}?view=deploy`);
    await page
      .getByRole("status", { name: "Hook status" })
      .getByTestId("active-badge")
      .filter({ hasText: `v${second.version}` })
      .waitFor();
    const rollBack = page.getByRole("button", { name: `Roll back to version ${first.version}` });

    await rollBack.click();
    const dialog = page.getByRole("dialog", { name: `Roll back to version ${first.version}?` });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`version ${second.version}`);
    await screenshot(page, "rollback-confirm", "desktop");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await activeRevision()).toBe(second.id);

    await rollBack.click();
    await dialog.getByRole("button", { name: "Roll back", exact: true }).click();
    const done = page
      .getByRole("status")
      .filter({ hasText: "Rolled back: active is now" })
      .filter({ hasText: `version ${first.version} (revision ${short(first.id)})` });
    await done.waitFor();
    expect(await done.textContent()).toContain(
      `was version ${second.version} (revision ${short(second.id)})`,
    );
    expect(await activeRevision()).toBe(first.id);
    await screenshot(page, "rollback-done", "desktop");
  });

  it("shows fuel as whole units with English grouping, in the test console and the logs", async () => {
    const { workspace: ws, key } = demo();
    const page = await signedInGerman("fuel-admin");
    await page.goto(`${serverUrl()}/w/${ws}/tools/${demo().tool}`);
    await page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    const answered = page.waitForResponse(
      (response) => response.url().endsWith("/hook/test") && response.request().method() === "POST",
    );
    expect(await runTest(page, "Before", { arguments: { query: "fuel" } })).toBe("OK: continue");
    // The API counts fuel with a fraction; a person reads whole units.
    const { fuelUsed } = (await (await answered).json()) as { fuelUsed: number };
    const line = (await page.getByTestId("test-result").first().textContent()) ?? "";
    const shown = /(\S+) fuel/.exec(line)?.[1] ?? "";
    expect(shown, line).toMatch(/^\d{1,3}(,\d{3})*$/);
    expect(Number(shown.replaceAll(",", ""))).toBe(Math.round(fuelUsed));

    await callTool(ws, key, "search_release_notes", { query: "fuel" });
    let runId = "";
    await expect
      .poll(
        async () => {
          const runs = await apiCall<{ items: { id: string }[] }>(
            key,
            "GET",
            `/v1/workspaces/${ws}/hooks/logs?stage=before&limit=1`,
          );
          runId = runs.items[0]?.id ?? "";
          return runId;
        },
        { timeout: 20_000 },
      )
      .not.toBe("");
    await page.goto(`${serverUrl()}/w/${ws}/logs?run=${runId}`);
    const fuel = page.locator("#run-detail .run-meta > div").filter({ hasText: "Fuel" }).locator("dd");
    await fuel.waitFor();
    expect(await fuel.textContent()).toMatch(/^\d{1,3}(,\d{3})* fuel$/);
  });
});
