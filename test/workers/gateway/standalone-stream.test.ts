// The client's standalone stream (GET /mcp/{ws}): what a stateful upstream
// sends outside any request — a log message, a roots/list — reaches the
// client that opened it, and the client's answer goes back upstream.
import { ListRootsRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { callTool, connect, gatewayFetch, setup, type Gw } from "./harness";

async function standaloneStreamOpened(g: Gw): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const requests = await g.upstream.requests();
    if (requests.some((request) => request.method === "GET (standalone stream)")) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the gateway never opened the upstream's standalone stream");
}

describe("the standalone stream", () => {
  it("carries a stateful upstream's log message and roots/list outside any call; the client's roots reach it", async () => {
    const g = await setup();
    await g.upstream.mode("stateful-sse");
    await g.upstream.announces(true);
    const logs: unknown[] = [];
    const client = await connect(g, g.callKey, {
      capabilities: { roots: {} },
      handlers: (c) => {
        c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///client" }] }));
        c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
          logs.push(n.params);
        });
      },
    });
    await standaloneStreamOpened(g);
    expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({
      content: [{ type: "text", text: "hi (roots: file:///client)" }],
    });
    expect(logs).toEqual([{ level: "info", logger: "session", data: "announced" }]);
    await client.close();
  });

  it("a stateless upstream offers none: GET is 405 even with a session the gateway issued", async () => {
    const g = await setup();
    const init = await gatewayFetch(g)(`http://gateway.test/mcp/${g.ws}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${g.callKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    const session = init.headers.get("mcp-session-id");
    expect(session).toMatch(/^g1\./);
    const res = await gatewayFetch(g)(`http://gateway.test/mcp/${g.ws}`, {
      headers: {
        authorization: `Bearer ${g.callKey}`,
        accept: "text/event-stream",
        "mcp-session-id": session ?? "",
      },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
