// Two people edit one draft in two browsers: the second save is refused (If-Match), the newer version is
// shown beside the edits, and "Keep mine on top" saves them over it without losing either version.
import { afterAll, describe, expect, it } from "vitest";
import { apiCall, invite, serverUrl, signedIn, useBrowser } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";
import { replaceSource, save } from "./editor.ts";

const browser = useBrowser();
const demo = useDemo("console-conflict");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const source = (tag: string) => `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: args }) => ({ action: "continue", arguments: { text: args.text + " ${tag}" } }),
});
`;

describe("a save conflict between two browsers", () => {
  it("shows the newer version beside mine, and keeps mine on top of it", async () => {
    const { workspace: ws, key } = demo();
    const tool = await demoTool(demo(), "echo");
    const url = `${serverUrl()}/w/${ws}/tools/${tool}`;
    const ada = await signedIn(browser(), await invite(key, ws, "ada", "editor"));
    const bo = await signedIn(browser(), await invite(key, ws, "bo", "editor"));
    closers.push(
      () => ada.context.close(),
      () => bo.context.close(),
    );
    for (const { page } of [ada, bo]) {
      await page.goto(url);
      await page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    }

    await replaceSource(ada.page, source("from ada"));
    const first = await save(ada.page, "ada's");
    await replaceSource(bo.page, source("from bo"));
    await bo.page.getByRole("textbox", { name: "Version note" }).fill("bo's");
    await bo.page.getByRole("button", { name: "Save", exact: true }).click();

    const conflict = bo.page.getByRole("region", { name: "Someone saved a newer draft" });
    await conflict.waitFor();
    await expect.poll(() => conflict.textContent()).toContain(`Version ${first} was saved by ada`);
    await conflict.getByRole("button", { name: "Keep mine on top" }).click();
    await bo.page.getByText(`Saved as version ${first + 1}.`).waitFor();

    const draft = await apiCall<{
      draft: { source: string; version: number; actor: string; channel: string };
    }>(key, "GET", `/v1/workspaces/${ws}/tools/${tool}/hook`);
    expect(draft.draft).toMatchObject({ version: first + 1, actor: "bo", channel: "web" });
    expect(draft.draft.source).toContain("from bo");
    const versions = await apiCall<{ items: { version: number; actor: string }[] }>(
      key,
      "GET",
      `/v1/workspaces/${ws}/tools/${tool}/hook/versions`,
    );
    expect(versions.items.map((v) => [v.version, v.actor])).toEqual(
      expect.arrayContaining([
        [first, "ada"],
        [first + 1, "bo"],
      ]),
    );
  });
});
