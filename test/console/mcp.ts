// The demo workspace's gateway through the official MCP SDK client, as an agent would call it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serverUrl } from "./browser.ts";

/** Calls one tool once (a fresh client each time) and returns its first text block. */
export async function callTool(
  ws: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const client = new Client({ name: "console-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl()}/mcp/${ws}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.find((block) => block.type === "text");
    return text?.type === "text" ? text.text : JSON.stringify(result);
  } finally {
    await client.close();
  }
}
