// What each role sees: a viewer gets the Hooks tab read-only, and captured log details (messages, data)
// reach only admins; an editor sees the run's metadata and a note instead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser } from "./browser.ts";
import { useDemo } from "./demo.ts";
import { callTool } from "./mcp.ts";

const browser = useBrowser();
const demo = useDemo("console-roles");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The seeded adapter logs "Preparing search" with the query: a run with captured details. */
let runId = "";
beforeAll(async () => {
  const { workspace: ws, key } = demo();
  await callTool(ws, key, "search_release_notes", { query: "role-check" });
  for (let attempt = 0; attempt < 50 && runId === ""; attempt++) {
    const page = await apiCall<{ items: { id: string; stage: string; targetName?: string }[] }>(
      key,
      "GET",
      `/v1/workspaces/${ws}/hooks/logs?stage=before&limit=5`,
    );
    runId = page.items[0]?.id ?? "";
    if (runId === "") await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

async function as(role: "admin" | "editor" | "viewer", name: string) {
  const session = await signedIn(browser(), await invite(demo().key, demo().workspace, name, role));
  closers.push(() => session.context.close());
  return session;
}

describe("roles in the console", () => {
  it("shows captured details to an admin and hides them from an editor", async () => {
    expect(runId).not.toBe("");
    const url = `${serverUrl()}/w/${demo().workspace}/logs?run=${runId}`;
    const admin = await as("admin", "details-admin");
    await admin.page.goto(url);
    await admin.page.getByText("Preparing search").first().waitFor();
    expect(await admin.page.locator(".details-note").count()).toBe(0);

    const editor = await as("editor", "details-editor");
    await editor.page.goto(url);
    await editor.page.locator(".details-note").waitFor();
    expect(await editor.page.locator(".details-note").textContent()).toContain("admins only");
    expect(await editor.page.getByText("Preparing search").count()).toBe(0);
    await screenshot(editor.page, "logs-run-as-editor", "desktop");
  });

  it("gives a viewer the Hooks tab without save, deploy or reset", async () => {
    const viewer = await as("viewer", "tab-viewer");
    await viewer.page.goto(`${serverUrl()}/w/${demo().workspace}/tools/${demo().tool}`);
    await viewer.page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    expect(await viewer.page.getByRole("button", { name: "Save", exact: true }).count()).toBe(0);
    await viewer.page.goto(`${serverUrl()}/w/${demo().workspace}/tools/${demo().tool}?view=deploy`);
    await viewer.page.getByRole("heading", { name: "Revisions" }).waitFor();
    expect(await viewer.page.getByRole("button", { name: /^Deploy version/ }).count()).toBe(0);
    expect(await viewer.page.getByRole("button", { name: "Reset hook" }).count()).toBe(0);
    await screenshot(viewer.page, "hooks-deploy-as-viewer", "desktop");
  });
});
