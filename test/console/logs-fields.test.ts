// The logs page shows every field of a run record, in Chromium on the demo workspace: a Code Mode
// `execute` (and the hooked call its code made) is found with the Mode filter and marked "code", and a
// request hook's run, made by a call through the LLM proxy, shows whether it was a turn error and
// its attempt. Screenshots of both at the desktop and phone widths go under test-results/console/.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-logs-fields");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** One Code Mode `execute` whose code calls the demo's hooked search_release_notes tool. */
async function executeCode(ws: string, key: string): Promise<void> {
  const client = new Client({ name: "console-logs-fields", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl()}/mcp/${ws}?mode=code`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const result = (await client.callTool({
      name: "execute",
      arguments: {
        code: `const found = await tools.search_release_notes({ query: "code mode" }); return found.items.length;`,
      },
    })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
  } finally {
    await client.close();
  }
}

/** One chat completion through the LLM proxy: the demo's pre_llm_hook runs for it. */
async function chat(ws: string, key: string): Promise<void> {
  const res = await fetch(`${serverUrl()}/llm/${ws}/openai/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-demo", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The open run's metadata, label → text. */
const meta = (page: Page): Promise<Record<string, string>> =>
  page
    .locator("#run-detail .run-meta > div")
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [
          row.querySelector("dt")?.textContent ?? "",
          row.querySelector("dd")?.textContent ?? "",
        ]),
      ),
    );

/** The table's rows once one has `text` (run records are written just after the call ends). */
async function rowsOnceListed(page: Page, text: string): Promise<Locator> {
  const rows = page.getByRole("table", { name: "Stage runs" }).locator("tr[data-run-id]");
  await expect
    .poll(
      async () => {
        await page.getByRole("button", { name: "Reload" }).click();
        await page.waitForLoadState("networkidle");
        return rows.filter({ hasText: text }).count();
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBeGreaterThan(0);
  return rows;
}

async function noSeriousViolations(page: Page): Promise<void> {
  const violations = (await axeViolations(page)).filter(
    (v) => v.impact === "serious" || v.impact === "critical",
  );
  expect(violations, describeViolations(violations)).toEqual([]);
}

beforeAll(async () => {
  const { workspace: ws, key } = demo();
  await executeCode(ws, key);
  await chat(ws, key);
});

describe("the logs page's run fields", () => {
  it("filters by mode, marks Code Mode runs, and shows a request hook's turn error and attempt", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(browser(), await invite(key, ws, "logs-admin", "admin"));
    closers.push(() => context.close());

    // Mode "code": the execution and the hooked call its code made, each with the "code" badge.
    await page.goto(`${serverUrl()}/w/${ws}/logs`);
    await page.getByRole("combobox", { name: "Mode", exact: true }).selectOption("code");
    await page.waitForURL(/[?&]mode=code\b/);
    const codeRows = await rowsOnceListed(page, "Code Mode execute");
    await rowsOnceListed(page, "search_release_notes");
    const count = await codeRows.count();
    expect(await codeRows.locator(".badge-code").count()).toBe(count);
    const execution = codeRows.filter({ hasText: "Code Mode execute" });
    expect(await execution.locator("td").nth(2).textContent()).toBe("execute");
    await execution.getByRole("link", { name: /: open run / }).click();
    await page.locator("#run-detail .run-meta").waitFor();
    const executed = await meta(page);
    expect(executed).toMatchObject({ Hook: "Code Mode execute", Stage: "execute", Mode: "code" });
    expect(executed).not.toHaveProperty("Turn error");
    expect(executed).not.toHaveProperty("Attempt");
    await screenshot(page, "logs-code-mode", "desktop");
    await noSeriousViolations(page);

    // Direct request hook runs: no "code" badge, and the turn error and attempt of the run.
    await page.getByRole("combobox", { name: "Mode", exact: true }).selectOption("direct");
    await page.waitForURL(/[?&]mode=direct\b/);
    await page.getByRole("combobox", { name: "Hook kind" }).selectOption("request_hook");
    await page.waitForURL(
      (url) => url.searchParams.get("kind") === "request_hook" && url.searchParams.get("mode") === "direct",
    );
    const hookRows = await rowsOnceListed(page, "request hook (main)");
    expect(await hookRows.locator(".badge-code").count()).toBe(0);
    await hookRows
      .first()
      .getByRole("link", { name: /: open run / })
      .click();
    await page.locator("#run-detail .run-meta").waitFor();
    expect(await meta(page)).toMatchObject({
      Hook: "request hook (main)",
      Mode: "direct",
      "Turn error": "no",
      Attempt: "1",
    });
    await screenshot(page, "logs-request-hook", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "logs-request-hook", "phone");
    await noSeriousViolations(page);
  });
});
