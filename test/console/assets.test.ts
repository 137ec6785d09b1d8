// The console is the api Worker's static assets: `/` and every client route answer with the app (so a
// reload or a shared link works), while /v1, /mcp and /llm stay the API and the data plane.
import { describe, expect, it } from "vitest";
import { serverUrl } from "./browser.ts";

const APP_ROOT = '<div id="app">';
const navigate = (path: string) =>
  fetch(`${serverUrl()}${path}`, { headers: { accept: "text/html", "sec-fetch-mode": "navigate" } });

describe("console assets", () => {
  it("serves the console at /", async () => {
    const res = await navigate("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain(APP_ROOT);
  });

  it("falls back to the app for client routes, so reload and deep links work", async () => {
    for (const path of ["/w/any-workspace/tools/any-tool?view=versions", "/sign-in", "/w/x/settings/keys"]) {
      const res = await navigate(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain(APP_ROOT);
    }
  });

  it("serves the built scripts and styles the page names", async () => {
    const html = await (await navigate("/")).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? "");
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await fetch(`${serverUrl()}${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type"), asset).toMatch(/javascript|css/);
    }
  });

  it("keeps /v1 the API: an unknown API path is a problem, never the page", async () => {
    const res = await navigate("/v1/no-such-route");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("keeps /mcp and /llm on the Worker", async () => {
    for (const path of ["/mcp/no-such-workspace", "/llm/no-such-workspace/openai/v1/chat/completions"]) {
      const res = await navigate(path);
      expect(await res.text(), path).not.toContain(APP_ROOT);
    }
  });
});
