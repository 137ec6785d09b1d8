// The file test console on a plugin, in Chromium on the demo workspace: plugins/word-count.ts defines
// `tool` and `tool.execute.before` only, so the hook list offers those two and selects the first; running
// `tool` shows the tool definitions as JSON (parameters an object, not the sandbox's wire encoding).
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-plugin-test-hooks");
/** The page loads what it shows after it opens: time for the server on a busy machine. */
const PATIENT = { timeout: 15_000 };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** Opens plugins/word-count.ts's test view signed in as a new editor. */
async function openTest(name: string): Promise<Page> {
  const { workspace: ws, key } = demo();
  const { context, page } = await signedIn(browser(), await invite(key, ws, name, "editor"));
  closers.push(() => context.close());
  await page.goto(`${serverUrl()}/w/${ws}/files/${encodeURIComponent("plugins/word-count.ts")}?view=test`);
  return page;
}

describe("the plugin test console", () => {
  it("offers only the hooks the version defines and selects the first", async () => {
    const page = await openTest("plugin-hooks");
    const hook = page.getByRole("combobox", { name: "Plugin hook" });
    await expect
      .poll(() => hook.locator("option").allTextContents(), PATIENT)
      .toEqual(["tool", "tool.execute.before"]);
    expect(await hook.inputValue()).toBe("tool");
    expect(JSON.parse(await page.getByRole("textbox", { name: "Input (JSON)" }).inputValue())).toEqual({});
  });

  it("shows the definitions `tool` returns as JSON, parameters an object", async () => {
    const page = await openTest("plugin-tool");
    await expect
      .poll(() => page.getByRole("combobox", { name: "Plugin hook" }).inputValue(), PATIENT)
      .toBe("tool");
    const before = await page.getByTestId("test-outcome").count();
    await page.getByRole("button", { name: "Run test" }).click();
    await page.waitForFunction(
      (n) => document.querySelectorAll("[data-testid=test-outcome]").length > n,
      before,
    );
    expect(await page.locator("#test-problem").count()).toBe(0);
    const result = page.getByTestId("test-result").first();
    expect(await result.getByTestId("test-outcome").textContent()).toBe("OK");
    const shown = (await result.locator("pre").first().textContent()) ?? "";
    expect(await result.textContent()).not.toContain('"J{');
    const definitions = JSON.parse(shown) as {
      id: string;
      parameters: unknown;
    }[];
    expect(definitions[0]?.id).toBe("word_count");
    expect(definitions[0]?.parameters).toMatchObject({
      type: "object",
      required: ["text"],
    });
    await screenshot(page, "plugin-test-tool", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "plugin-test-tool", "phone");
  });
});
