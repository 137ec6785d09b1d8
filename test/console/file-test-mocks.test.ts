// The file test console's host call mocks, in Chromium on the demo workspace: lib/fast-rag-hook.ts's
// `transform` awaits `rayrun.lambda`, so its run shows the mock's answer and how the mocks were used;
// with no mock the call is refused and the usage is a warning; text that is not a JSON array is
// refused beside its field and nothing is sent, and the API's refusal of a mock is shown there too.
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { axeViolations, describeViolations } from "./axe.ts";
import { invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-file-test-mocks");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const QUESTION = { role: "user", content: "When does the office open?" };
const RETRIEVED = "Retrieved context: the office opens at 9:00.";
const INPUT = {
  request: { model: "demo", messages: [QUESTION], tools: [], options: {} },
  loop: { name: "main" },
};
/** The hook's exact call: the mock answers only a lambda call with these arguments. */
const LAMBDA_MOCK = {
  name: "lambda",
  args: { source: "lib/fast-rag.ts:enrichMessages", args: { messages: [QUESTION], loop: "main" } },
  result: { messages: [{ role: "user", content: RETRIEVED }] },
};

/** Clicks "Run test" and waits for the run's outcome badge (each run adds one, newest first). */
async function run(page: Page): Promise<string> {
  const before = await page.getByTestId("test-outcome").count();
  await page.getByRole("button", { name: "Run test" }).click();
  await page.waitForFunction(
    (n) => document.querySelectorAll("[data-testid=test-outcome]").length > n,
    before,
  );
  return (await page.getByTestId("test-outcome").first().textContent()) ?? "";
}

describe("host call mocks in the file test console", () => {
  it("answers the hook's lambda call from a mock, warns of an unmatched call, and refuses a list that is not an array", async () => {
    const { workspace: ws, key } = demo();
    const { context, page } = await signedIn(browser(), await invite(key, ws, "mocks-editor", "editor"));
    closers.push(() => context.close());
    const posted: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith("/test")) {
        posted.push(request.postData() ?? "");
      }
    });

    const file = encodeURIComponent("lib/fast-rag-hook.ts");
    await page.goto(`${serverUrl()}/w/${ws}/files/${file}?view=test`);
    const mocks = page.getByRole("textbox", { name: "Host call mocks (JSON)" });
    expect(await mocks.inputValue()).toBe("[]");
    expect(await page.getByRole("textbox", { name: "Exported function" }).inputValue()).toBe("transform");
    await page.getByRole("textbox", { name: "Input (JSON)" }).fill(JSON.stringify(INPUT));

    // The mock's answer becomes the hook's messages; the rest of the request is unchanged.
    await mocks.fill(JSON.stringify([LAMBDA_MOCK]));
    expect(await run(page)).toBe("OK");
    const result = page.getByTestId("test-result").first();
    const value = JSON.parse((await result.locator("pre").first().textContent()) ?? "") as unknown;
    expect(value).toEqual({ ...INPUT.request, messages: LAMBDA_MOCK.result.messages });
    const usage = result.getByTestId("host-calls");
    expect(await usage.textContent()).toBe("host calls: 1 mock used, 0 unused, 0 unmatched");
    expect(await usage.getAttribute("class")).not.toContain("notice-warn");
    expect(JSON.parse(posted.at(-1) ?? "{}")).toMatchObject({
      export: "transform",
      hostCalls: [LAMBDA_MOCK],
    });

    // No mock: the call is refused, the hook (which does not catch it) fails, and the usage warns.
    await mocks.fill("[]");
    expect(await run(page)).toMatch(/^Failed/);
    expect(JSON.parse(posted.at(-1) ?? "{}")).not.toHaveProperty("hostCalls");
    const refused = page.getByTestId("test-result").first().getByTestId("host-calls");
    expect(await refused.textContent()).toContain("host calls: 0 mocks used, 0 unused, 1 unmatched");
    expect(await refused.getAttribute("class")).toContain("notice-warn");

    // An object where the list belongs: the field says so (and takes the focus), nothing is sent.
    const sent = posted.length;
    const error = page.locator(".field:has(textarea[name=hostCalls]) .field-error");
    await mocks.fill(JSON.stringify(LAMBDA_MOCK));
    await page.getByRole("button", { name: "Run test" }).click();
    await error.waitFor();
    expect(await error.textContent()).toBe(
      "Host call mocks must be a JSON array of mocks; this is an object.",
    );
    expect(await mocks.getAttribute("aria-invalid")).toBe("true");
    expect((await mocks.getAttribute("aria-describedby"))?.split(" ")).toContain(
      await error.getAttribute("id"),
    );
    expect(await mocks.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.locator("#test-problem").count()).toBe(0);
    expect(posted.length).toBe(sent);
    await mocks.fill('[{ "name": "lambda"');
    await page.getByRole("button", { name: "Run test" }).click();
    await expect.poll(() => error.textContent()).toMatch(/^Not valid JSON: /);
    expect(posted.length).toBe(sent);

    // A mock the API refuses: its answer is placed at the field too, naming the mock.
    await mocks.fill(JSON.stringify([{ name: "shell", result: 1 }]));
    await page.getByRole("button", { name: "Run test" }).click();
    await expect.poll(() => error.textContent()).toMatch(/^Mock 1 name: /);
    expect(posted.length).toBe(sent + 1);
    await screenshot(page, "file-test-mocks", "desktop");

    const violations = (await axeViolations(page)).filter(
      (v) => v.impact === "serious" || v.impact === "critical",
    );
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.setViewportSize(VIEWPORTS.phone);
    await screenshot(page, "file-test-mocks", "phone");
  });
});
