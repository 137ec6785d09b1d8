// Driving the Hooks tab like a person: the CodeMirror editor, the view tabs and the hook status.
import type { Page } from "playwright-core";

/** Replaces the editor's whole text, typed as one insertion (no auto-closed brackets or indents). */
export async function replaceSource(page: Page, source: string): Promise<void> {
  const editor = page.getByRole("textbox", { name: /Adapter source for/ });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(source);
}

/** Saves the draft and waits for the version it became. */
export async function save(page: Page, note: string): Promise<number> {
  await page.getByRole("textbox", { name: "Version note" }).fill(note);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const saved = page.getByText(/Saved as version \d+\./);
  await saved.waitFor();
  return Number(/version (\d+)/.exec((await saved.textContent()) ?? "")?.[1]);
}

export async function openView(page: Page, view: "Editor" | "Test" | "Versions" | "Deploy"): Promise<void> {
  await page
    .getByRole("navigation", { name: "Hook views" })
    .getByRole("link", { name: view, exact: true })
    .click();
}

/** Runs one stage in the test console and returns the outcome badge's text. */
export async function runTest(
  page: Page,
  stage: "Before" | "After",
  input: { arguments?: unknown; result?: unknown },
): Promise<string> {
  await openView(page, "Test");
  await page.getByRole("radio", { name: stage }).check();
  if (input.arguments !== undefined) {
    await page.getByRole("textbox", { name: "Arguments (JSON)" }).fill(JSON.stringify(input.arguments));
  }
  if (input.result !== undefined) {
    await page.getByRole("textbox", { name: "Mock result (JSON)" }).fill(JSON.stringify(input.result));
  }
  const runs = await page.getByTestId("test-outcome").count();
  await page.getByRole("button", { name: "Run test" }).click();
  // Every run adds an outcome badge (the newest first; earlier runs keep theirs).
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=test-outcome]").length > n, runs);
  return (await page.getByTestId("test-outcome").first().textContent()) ?? "";
}

/** Deploys `version` to a channel from the Deploy view and waits for the hook status to show it. */
export async function deploy(page: Page, version: number, channel: "Shadow" | "Active"): Promise<void> {
  await openView(page, "Deploy");
  await page.getByRole("radio", { name: channel }).check();
  await page.getByRole("button", { name: `Deploy version ${version} to ${channel.toLowerCase()}` }).click();
  await page
    .getByRole("status", { name: "Hook status" })
    .getByTestId(channel === "Shadow" ? "shadow-badge" : "active-badge")
    .filter({ hasText: `v${version}` })
    .waitFor();
}
