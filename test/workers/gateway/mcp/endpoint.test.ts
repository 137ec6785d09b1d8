// The MCP endpoint: authentication, the official SDK client unchanged,
// tools/list with public contracts, JSON-RPC errors.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { nestedObject } from "../../../helpers/nested";
import { BOOTSTRAP_KEY, createWorkspace } from "../../../helpers/api";
import { SEED_ADAPTER } from "../adapters";
import { call, connect, createKey, deploy, gatewayFetch, json, rawMcp, setup } from "../harness";

/** A tools/call whose message nests `depth` levels: message, params, arguments, then `a`. */
const deepCall = (depth: number) => ({
  jsonrpc: "2.0",
  id: 9,
  method: "tools/call",
  params: { name: "echo", arguments: { text: "deep", a: nestedObject(depth - 3) } },
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

type CallBody = { result: { _meta: Record<string, unknown> } };
const withoutRequestId = (body: CallBody) => ({
  ...body,
  result: { ...body.result, _meta: { ...body.result._meta, "rayrun/requestId": "…" } },
});

describe("authentication", () => {
  it("a missing key is 401 problem+json", async () => {
    const g = await setup();
    const res = await rawMcp(g, initialize, { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "unauthorized" });
  });

  it("an unknown key is 401", async () => {
    const g = await setup();
    const res = await rawMcp(g, initialize, { key: "rr_nope" });
    expect(res.status).toBe(401);
  });

  it("a key without tools:call is 403", async () => {
    const g = await setup();
    const res = await rawMcp(g, initialize, { key: g.writeKey });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "forbidden" });
  });

  it("a key of another workspace is 403", async () => {
    const g = await setup();
    const other = (await createWorkspace("other")).uid;
    const { key } = await createKey(other, { scopes: ["tools:call"], actor: "stranger" });
    const res = await rawMcp(g, initialize, { key });
    expect(res.status).toBe(403);
  });

  it("a revoked key is refused from the next request on initialize, ping and tools/list", async () => {
    const g = await setup();
    const ping = { jsonrpc: "2.0", id: 2, method: "ping" };
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list" };
    const version = { "mcp-protocol-version": "2025-06-18" };
    // The isolate now holds the key.
    expect((await rawMcp(g, initialize)).status).toBe(200);
    expect((await rawMcp(g, ping, { headers: version })).status).toBe(200);
    await json(await call("DELETE", `/v1/workspaces/${g.ws}/keys/${g.callKeyId}`), 200);
    for (const [message, headers] of [
      [initialize, {}],
      [ping, version],
      [list, version],
    ] as const) {
      const res = await rawMcp(g, message, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({
        code: "unauthorized",
        detail: expect.stringContaining("revoked"),
      });
    }
  });

  it("an unknown workspace is 404 workspace_not_found, even for the bootstrap key", async () => {
    const g = await setup();
    for (const message of [initialize, { jsonrpc: "2.0", id: 9, method: "tools/list" }]) {
      const res = await rawMcp(g, message, {
        key: BOOTSTRAP_KEY,
        ws: "ws_nope",
        headers: { "mcp-protocol-version": "2025-06-18" },
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: "workspace_not_found" });
    }
  });

  it("the bootstrap key may call tools in any workspace", async () => {
    const g = await setup();
    const client = await connect(g, BOOTSTRAP_KEY);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).toSorted()).toEqual(["always_fails", "echo", "search_release_notes"]);
  });
});

describe("protocol", () => {
  it("initialize and ping work with the official SDK client unchanged", async () => {
    const g = await setup();
    const client = await connect(g);
    expect(client.getServerVersion()).toMatchObject({ name: "rayrun-gateway" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    await expect(client.ping()).resolves.toEqual({});
  });

  it("answers JSON to a client that accepts only JSON", async () => {
    const g = await setup();
    const res = await rawMcp(g, initialize, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toMatchObject({ id: 1, result: { serverInfo: { name: "rayrun-gateway" } } });
  });

  it("streams SSE only to a client that accepts only SSE", async () => {
    const g = await setup();
    const res = await rawMcp(g, initialize, { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await res.text()).toContain('"serverInfo"');
  });

  it("a byte order mark before the JSON-RPC message is ignored, as on the API", async () => {
    const g = await setup();
    const res = await rawMcp(g, `\uFEFF${JSON.stringify(initialize)}`, {
      headers: { accept: "application/json" },
    });
    expect(await res.json()).toMatchObject({ id: 1, result: { serverInfo: { name: "rayrun-gateway" } } });
  });

  it("malformed JSON-RPC is a JSON-RPC error", async () => {
    const g = await setup();
    const res = await rawMcp(g, "{not json");
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const invalid = await rawMcp(g, { hello: "world" });
    expect(await invalid.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
  });

  it("limit: jsonDepth — a message nested to the limit is called, one level deeper is -32600 before any call", async () => {
    const g = await setup();
    const atLimit = await rawMcp(g, deepCall(LIMITS.jsonDepth));
    expect(await atLimit.json()).toMatchObject({ id: 9, result: { content: [{ text: "deep" }] } });
    expect(await g.upstream.calls()).toHaveLength(1);
    for (const depth of [LIMITS.jsonDepth + 1, 10_000]) {
      const over = await rawMcp(g, deepCall(depth));
      expect(over.status).toBe(400);
      expect(await over.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining(`${LIMITS.jsonDepth} levels`) },
      });
    }
    expect(await g.upstream.calls()).toHaveLength(1);
  });

  it("tools/call answers the same as JSON (direct path) and as SSE (SDK path)", async () => {
    const g = await setup();
    const message = {
      jsonrpc: "2.0",
      id: "call-1",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "same" } },
    };
    const asJson = await rawMcp(g, message);
    expect(asJson.headers.get("content-type")).toContain("application/json");
    const jsonBody = await asJson.json<CallBody>();
    const asSse = await rawMcp(g, message, { headers: { accept: "text/event-stream" } });
    expect(asSse.headers.get("content-type")).toContain("text/event-stream");
    const event = (await asSse.text()).split("\n").find((line) => line.startsWith("data: "));
    const sseBody = JSON.parse(event?.slice(6) ?? "null") as CallBody;
    // Only the per-call request id differs.
    expect(withoutRequestId(jsonBody)).toEqual(withoutRequestId(sseBody));
    expect(jsonBody).toMatchObject({ id: "call-1", result: { content: [{ type: "text", text: "same" }] } });
  });

  it("a tools/call with invalid params is -32602 with one line naming the field, on every path", async () => {
    const g = await setup();
    const cases = [
      [{ name: "echo", arguments: "text" }, "params.arguments must be an object."],
      [{ name: "echo", arguments: [1] }, "params.arguments must be an object."],
      [{ arguments: {} }, "params.name must be a string naming the tool."],
      [{ name: 7 }, "params.name must be a string naming the tool."],
      [undefined, "tools/call needs params: { name, arguments }."],
      ["echo", "params must be an object: { name, arguments }."],
    ] as const;
    for (const [params, message] of cases) {
      const request = {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        ...(params === undefined ? {} : { params }),
      };
      const direct = await rawMcp(g, request);
      expect(await direct.json()).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message } });
      const sse = await rawMcp(g, request, { headers: { accept: "text/event-stream" } });
      const event = (await sse.text()).split("\n").find((line) => line.startsWith("data: "));
      expect(JSON.parse(event?.slice(6) ?? "null")).toEqual({
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32602, message },
      });
    }
    const batched = await rawMcp(
      g,
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: 5 } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "ok" } } },
      ],
      { headers: { "mcp-protocol-version": "2025-03-26" } },
    );
    const answers = await batched.json<{ id: number; error?: { code: number; message: string } }[]>();
    expect(answers.toSorted((x, y) => x.id - y.id)).toMatchObject([
      { id: 1, error: { code: -32602, message: "params.arguments must be an object." } },
      { id: 2, result: { content: [{ text: "ok" }] } },
    ]);
    expect(await g.upstream.calls()).toHaveLength(1);
  });

  it("an unsupported protocol version is refused before any call", async () => {
    const g = await setup();
    const version = await rawMcp(
      g,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
      { headers: { "mcp-protocol-version": "1999-01-01" } },
    );
    expect(version.status).toBe(400);
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an unknown tool is a JSON-RPC error whose message the official client shows with one prefix", async () => {
    const g = await setup();
    const res = await rawMcp(g, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "no_such_tool", arguments: {} },
    });
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32602, message: "Unknown tool: no_such_tool" },
    });
    const client = await connect(g);
    const error = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32602, message: "MCP error -32602: Unknown tool: no_such_tool" });
    await client.close();
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an upstream's JSON-RPC error reaches the client with its code and data and one prefix", async () => {
    const g = await setup();
    const data = {
      elicitations: [{ mode: "url", url: "https://example.test/consent", elicitationId: "e1" }],
    };
    await g.upstream.rpcError({ code: -32042, message: "This tool needs your consent first.", data });
    const res = await rawMcp(g, {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32042, message: "This tool needs your consent first.", data },
    });
    const client = await connect(g);
    const error = await client.callTool({ name: "echo", arguments: { text: "x" } }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: -32042,
      message: "MCP error -32042: This tool needs your consent first.",
      data,
    });
    await client.close();
  });

  it("GET without a session the gateway issued is 405: there is no standalone stream to give", async () => {
    const g = await setup();
    const res = await gatewayFetch(g)(`http://gateway.test/mcp/${g.ws}`, {
      headers: { authorization: `Bearer ${g.callKey}`, accept: "text/event-stream" },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("tools/list", () => {
  it("lists every callable tool by public name with the active revision's public contract, else the upstream definition", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const client = await connect(g);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).toSorted()).toEqual(["always_fails", "echo", "search_release_notes"]);
    expect(byName.search_release_notes).toMatchObject({
      description: "Search public release notes",
      inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    });
    // No publicContract output schema: the upstream's stays.
    expect(byName.search_release_notes?.outputSchema).toMatchObject({
      properties: { items: { type: "array" } },
    });
    expect(byName.echo).toMatchObject({
      description: "Echo the text back",
      inputSchema: { properties: { text: { type: "string" } } },
    });
  });

  it("leaves out tools the key's access profile blocks or does not allow", async () => {
    const g = await setup();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/narrow`, {
        body: { allowedTools: ["echo", "always_fails"], blockedTools: ["always_fails"] },
      }),
      200,
    );
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "narrow", profile: "narrow" });
    const client = await connect(g, key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("refuses a revoked key even while the isolate still knows it", async () => {
    const g = await setup();
    const client = await connect(g);
    await client.listTools();
    await json(await call("DELETE", `/v1/workspaces/${g.ws}/keys/${g.callKeyId}`), 200);
    await expect(client.listTools()).rejects.toThrow(/revoked/);
  });

  it("leaves out tools removed upstream", async () => {
    const g = await setup();
    await g.upstream.hide(["always_fails"]);
    await call("POST", `/v1/workspaces/${g.ws}/services/${g.serviceUid}/refresh`);
    const client = await connect(g);
    expect((await client.listTools()).tools.map((t) => t.name).toSorted()).toEqual([
      "echo",
      "search_release_notes",
    ]);
  });
});
