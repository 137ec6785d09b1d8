import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { describe, expect, it } from "vitest";

describe("the test upstream", () => {
  it("is a real MCP server that an official-SDK client lists and calls", async () => {
    const id = crypto.randomUUID();
    const client = new Client(
      { name: "test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://upstream.test/${id}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).toSorted()).toEqual(["always_fails", "echo", "search_release_notes"]);
    const result = await client.callTool({ name: "search_release_notes", arguments: { q: "x" } });
    expect(result.structuredContent).toEqual({
      items: expect.arrayContaining([expect.objectContaining({ score: 0.9 })]),
    });
    const calls = await (await fetch(`http://upstream.test/${id}/_calls`)).json<unknown[]>();
    expect(calls).toEqual([{ tool: "search_release_notes", arguments: { q: "x" }, authorization: null }]);
    await client.close();
  });
});
