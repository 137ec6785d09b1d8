// The console's main workflow in one test, as a new admin does it in Chromium: sign in with the invite
// link, open the demo service and a tool, type an adapter and see a type error from the generated types,
// fix it, save, test both stages, deploy to shadow, call the tool with the official MCP SDK client, find
// the shadow run in the logs, deploy to active and call again, roll back, then reset.
import { afterAll, describe, expect, it } from "vitest";
import { invite, screenshot, serverUrl, signedIn, useBrowser } from "./browser.ts";
import { demoTool, useDemo } from "./demo.ts";
import { deploy, openView, replaceSource, runTest, save } from "./editor.ts";
import { callTool } from "./mcp.ts";

const browser = useBrowser();
const demo = useDemo("console-flow");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const adapter = (body: string) => `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: args }) {
    return { action: "continue", arguments: { text: ${body} } };
  },
  after({ result }) {
    return { action: "return", result };
  },
});
`;

describe("the Hooks tab, from draft to active deployment", () => {
  it("takes one adapter from a typed draft through shadow and active to rollback and reset", async () => {
    const { workspace: ws, key } = demo();
    const echo = await demoTool(demo(), "echo");
    const { context, page, requests } = await signedIn(
      browser(),
      await invite(key, ws, "flow-admin", "admin"),
    );
    closers.push(() => context.close());
    const call = () => callTool(ws, key, "echo", { text: "hello" });

    // The demo service, then its echo tool.
    await page.getByRole("link", { name: "demo", exact: true }).click();
    await page.locator(`a[href$="/tools/${echo}"]`).first().click();
    await page.getByRole("heading", { level: 1, name: "echo" }).waitFor();

    // A field the upstream schema does not have is a type error from the generated declarations.
    await replaceSource(page, adapter("args.nope.toUpperCase()"));
    await page.locator(".cm-lintRange-error").first().waitFor({ timeout: 90_000 });
    const problems = page.getByRole("list", { name: "Problems in the source" });
    await expect.poll(() => problems.textContent(), { timeout: 30_000 }).toContain("nope");
    await screenshot(page, "hooks-type-error", "desktop");
    await replaceSource(page, adapter("args.text.toUpperCase()"));
    await expect.poll(() => page.locator(".cm-lintRange-error").count(), { timeout: 30_000 }).toBe(0);
    const v1 = await save(page, "shout");

    expect(await runTest(page, "Before", { arguments: { text: "hi" } })).toBe("OK: continue");
    await expect.poll(() => page.getByTestId("test-result").first().textContent()).toContain('"HI"');
    const mock = { content: [{ type: "text", text: "hi" }] };
    expect(await runTest(page, "After", { arguments: { text: "hi" }, result: mock })).toBe("OK: return");

    // Shadow runs beside the call; the client still gets the upstream's own answer.
    await deploy(page, v1, "Shadow");
    expect(await call()).toBe("hello");
    await page.goto(`${serverUrl()}/w/${ws}/logs?channel=shadow`);
    const table = page.getByRole("table", { name: "Stage runs" });
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Reload" }).click();
          return table.locator("tr[data-run-id]").filter({ hasText: "echo" }).count();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    await screenshot(page, "logs-shadow-run", "desktop");

    // Active: the client now sees the adapter's rewrite.
    await page.goBack();
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "echo" }).waitFor();
    await deploy(page, v1, "Active");
    expect(await call()).toBe("HELLO");

    // A second version, active, then rolled back to the first.
    await openView(page, "Editor");
    await replaceSource(page, adapter('args.text + "!"'));
    const v2 = await save(page, "exclaim");
    expect(await runTest(page, "Before", { arguments: { text: "hi" } })).toBe("OK: continue");
    await deploy(page, v2, "Active");
    expect(await call()).toBe("hello!");
    await openView(page, "Deploy");
    await page.getByRole("button", { name: new RegExp(`^Roll back to version ${v1}`) }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Roll back", exact: true }).click();
    await page
      .getByRole("status", { name: "Hook status" })
      .getByTestId("active-badge")
      .filter({ hasText: `v${v1}` })
      .waitFor();
    expect(await call()).toBe("HELLO");
    await screenshot(page, "hooks-deploy-rolled-back", "desktop");

    // Reset, behind typing the tool's name: no hook runs any more.
    await page.getByRole("textbox", { name: /to confirm/ }).fill("echo");
    await page.getByRole("button", { name: "Reset hook" }).click();
    await page.getByRole("status", { name: "Hook status" }).getByText("Not active").waitFor();
    expect(await call()).toBe("hello");

    // Everything the page loaded came from the server itself: nothing from the internet.
    const origin = new URL(serverUrl()).origin;
    expect(requests.filter((url) => !/^(data|blob):/.test(url) && !url.startsWith(origin))).toEqual([]);
  });
});
