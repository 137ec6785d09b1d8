// DNS-rebinding protection: with MCP_ALLOWED_HOSTS set (as the local dev
// server sets it), a request whose Host or Origin names another host is
// refused before authentication; without it (deployed), nothing is checked.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { gateway } from "../../../../workers/gateway/app";
import { setup, type Gw } from "../harness";

const PING = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

function ping(g: Gw, url: string, headers: Record<string, string>, hosts: string) {
  const request = new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${g.callKey}`,
      ...headers,
    },
    body: PING,
  });
  return gateway.fetch(request, { ...env, MCP_ALLOWED_HOSTS: hosts }, g.ctx);
}

describe("the MCP endpoint's allowed hosts", () => {
  it("refuses another Host or Origin with 403 forbidden_origin; the loopback names on any port pass", async () => {
    const g = await setup();
    const hosts = "localhost,127.0.0.1,[::1]";
    const evil = await ping(
      g,
      `http://evil.example.com/mcp/${g.ws}`,
      { origin: "http://evil.example.com" },
      hosts,
    );
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: "forbidden_origin" });

    const evilOrigin = await ping(
      g,
      `http://127.0.0.1:8787/mcp/${g.ws}`,
      { origin: "http://evil.example.com" },
      hosts,
    );
    expect(evilOrigin.status).toBe(403);

    for (const [url, origin] of [
      [`http://127.0.0.1:8787/mcp/${g.ws}`, "http://localhost:3000"],
      [`http://localhost:9999/mcp/${g.ws}`, null],
      [`http://[::1]:8787/mcp/${g.ws}`, "http://[::1]:8787"],
    ] as const) {
      const ok = await ping(g, url, origin === null ? {} : { origin }, hosts);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    }
  });

  it("with no allowed hosts configured (deployed), any Host and Origin reach the endpoint", async () => {
    const g = await setup();
    const res = await ping(
      g,
      `http://evil.example.com/mcp/${g.ws}`,
      { origin: "http://evil.example.com" },
      "",
    );
    expect(res.status).toBe(200);
  });
});
