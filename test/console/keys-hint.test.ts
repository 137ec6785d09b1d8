// The Keys page names each key by its hint (`rr_…` and the secret's last four characters), so a person
// can match a row to the key they hold: in the list, at both widths, and in the revoke confirmation.
import { afterAll, describe, expect, it } from "vitest";
import { apiCall, invite, screenshot, serverUrl, signedIn, useBrowser, VIEWPORTS } from "./browser.ts";
import { useDemo } from "./demo.ts";

const browser = useBrowser();
const demo = useDemo("console-keys-hint");
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe("the Keys page", () => {
  it.each(Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[])(
    "shows each key's hint at the %s width",
    async (viewport) => {
      const { workspace: ws, key: admin } = demo();
      const created = await apiCall<{ id: string; key: string }>(admin, "POST", `/v1/workspaces/${ws}/keys`, {
        scopes: ["hooks:read"],
        actor: `ci-${viewport}`,
      });
      const hint = `rr_…${created.key.slice(-4)}`;
      const { context, page } = await signedIn(
        browser(),
        await invite(admin, ws, `keys-${viewport}`, "admin"),
        VIEWPORTS[viewport],
      );
      closers.push(() => context.close());
      await page.goto(`${serverUrl()}/w/${ws}/settings/keys`);
      const row = page.locator(`[data-key-id="${created.id}"]`);
      await row.waitFor();
      const shown = row.getByText(hint, { exact: true });
      expect(await shown.isVisible()).toBe(true);
      await screenshot(page, "keys-hint", viewport);

      await row.getByRole("button", { name: `Revoke key ${hint} (ci-${viewport})` }).click();
      expect(await page.getByRole("dialog").textContent()).toContain(hint);
    },
  );
});
