// Code Mode test helpers: an official-SDK client on `/mcp/{ws}?mode=code`,
// and `execute` answers read as what the model gets.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { expect } from "vitest";
import { gatewayFetch, type Gw } from "../harness";

/** An official-SDK MCP client connected to `/mcp/{ws}?mode=code` with `key`. */
export async function connectCode(g: Gw, key: string = g.callKey): Promise<Client> {
  const client = new Client(
    { name: "code-mode-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://gateway.test/mcp/${g.ws}?mode=code`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: gatewayFetch(g),
  });
  await client.connect(transport);
  return client;
}

export async function callCode(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
}

export interface Executed {
  result: unknown;
  logs: { level: string; message: string; data?: unknown }[];
}

/** Runs `code` with `execute` and returns its `{ result, logs }`, checking it succeeded. */
export async function run(client: Client, code: string): Promise<Executed> {
  const answer = await callCode(client, "execute", { code });
  expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
  const structured = answer.structuredContent as unknown as Executed;
  expect(answer.content).toEqual([{ type: "text", text: JSON.stringify(structured) }]);
  return structured;
}

export interface CodeModeError {
  code: string;
  reason?: string;
  message: string;
}

/** Runs `code` with `execute` and returns the error it ended with (a tool error result, never a JSON-RPC error). */
export async function failure(client: Client, code: string): Promise<CodeModeError> {
  const answer = await callCode(client, "execute", { code });
  expect(answer).toMatchObject({ isError: true, _meta: { "rayrun/error": { code: expect.any(String) } } });
  const meta = answer._meta?.["rayrun/error"] as CodeModeError;
  expect(answer.content[0]).toEqual({ type: "text", text: meta.message });
  return meta;
}
