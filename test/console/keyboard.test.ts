// The editor page with the keyboard alone: Tab reaches the controls in order, the editor takes typing,
// Escape then Tab leaves it (it never traps focus), and Save works from the keyboard.
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { invite, serverUrl, signedIn, useBrowser } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-keyboard");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The focused element's accessible description: its label, or its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return "";
    return (el.getAttribute("aria-label") ?? el.textContent ?? "").trim();
  });

async function tabUntil(
  page: Page,
  matches: (label: string) => boolean,
  key = "Tab",
  max = 60,
): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const label = await focused(page);
    seen.push(label);
    if (matches(label)) return seen;
  }
  throw new Error(`never reached the element; focus went through: ${seen.join(" | ")}`);
}

describe("the editor page by keyboard", () => {
  it("reaches the editor in order, leaves it with Escape then Tab, and saves with Enter", async () => {
    const { workspace: ws, key } = demo();
    const tool = await demoTool(demo(), "echo");
    const { context, page } = await signedIn(browser(), await invite(key, ws, "keyboard-editor", "editor"));
    closers.push(() => context.close());
    await page.goto(`${serverUrl()}/w/${ws}/tools/${tool}`);
    await page.getByRole("textbox", { name: /Adapter source for/ }).waitFor();
    await page.locator("body").focus();

    const order = await tabUntil(page, (label) => label.startsWith("Adapter source for"));
    // The skip link first, then the navigation, the view tabs, the note and Save before the editor.
    expect(order[0]).toBe("Skip to content");
    const at = (label: string) => order.findIndex((l) => l === label);
    expect(at("Version note")).toBeGreaterThan(at("Editor"));
    expect(at("Save")).toBeGreaterThan(at("Version note"));

    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.insertText(
      'export default defineToolAdapter({ apiVersion: "rayrun.hooks/v1", before: ({ arguments: a }) => ({ action: "continue", arguments: a }) });\n',
    );
    // The first Escape closes the completion list typing opened; the second one lets Tab leave.
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    expect(await focused(page)).not.toMatch(/^Adapter source for/);

    await tabUntil(page, (label) => label === "Save", "Shift+Tab");
    await page.keyboard.press("Enter");
    await page.getByText(/Saved as version \d+\./).waitFor();
  });
});
