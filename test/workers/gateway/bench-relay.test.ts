// The bench's relay baseline (workers/gateway/bench-relay.ts): absent unless
// BENCH_RELAY_URL is set, and then it reaches only that URL.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { gateway } from "../../../workers/gateway/app";
import { newUpstream } from "../api/services/harness";

const toolsCall = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "relayed" } },
};

function relay(relayUrl: string | undefined, path = "/mcp/_bench/relay"): Promise<Response> {
  const request = new Request(`http://gateway.test${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      authorization: "Bearer not-forwarded",
    },
    body: JSON.stringify(toolsCall),
  });
  const bindings = relayUrl === undefined ? env : { ...env, BENCH_RELAY_URL: relayUrl };
  return Promise.resolve(gateway.fetch(request, bindings, createExecutionContext()));
}

describe("bench relay route", () => {
  it("is not found when BENCH_RELAY_URL is unset or empty, and calls nothing", async () => {
    const upstream = newUpstream();
    for (const value of [undefined, ""]) {
      const res = await relay(value);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(await res.json()).toMatchObject({ code: "not_found" });
    }
    expect(await upstream.calls()).toEqual([]);
  });

  it("forwards the MCP request to the configured URL only, without the caller's authorization", async () => {
    const upstream = newUpstream();
    const res = await relay(upstream.url);
    expect(res.status).toBe(200);
    const body = await res.text();
    const message = JSON.parse(body.startsWith("{") ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? "{}")) as {
      id?: number;
      result?: { content?: { text?: string }[] };
    };
    expect(message.id).toBe(7);
    expect(message.result?.content?.[0]?.text).toContain("relayed");
    expect(await upstream.calls()).toEqual([
      { tool: "echo", arguments: { text: "relayed" }, authorization: null },
    ]);
  });

  it("is not a workspace: other paths under /mcp/_bench are not relayed", async () => {
    const upstream = newUpstream();
    const res = await relay(upstream.url, "/mcp/_bench/relay/extra");
    expect(res.status).toBe(404);
    expect(await upstream.calls()).toEqual([]);
  });
});
