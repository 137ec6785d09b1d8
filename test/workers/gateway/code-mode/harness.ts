// Code Mode test helpers: an official-SDK client on `/mcp/{ws}?mode=code`,
// and `execute` answers read as what the model gets.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { expect } from "vitest";
import { gatewayFetch, runs, type Gw, type RunRow } from "../harness";

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

/** `execute` of `code` repeated after an approval: `_meta["rayrun/approvalId"]` on its tools/call request. */
export async function executeApproved(
  client: Client,
  code: string,
  approvalId: string,
): Promise<CallToolResult> {
  return CallToolResultSchema.parse(
    await client.callTool({
      name: "execute",
      arguments: { code },
      _meta: { "rayrun/approvalId": approvalId },
    }),
  );
}

export interface ApprovalEnded extends CodeModeError {
  approvalId: string;
  tool?: string;
  requestId?: string;
}

/** What an execution ended by an approval answers in `_meta["rayrun/error"]` (a tool error result). */
export function approvalEnded(answer: CallToolResult): ApprovalEnded {
  expect(answer).toMatchObject({
    isError: true,
    _meta: { "rayrun/error": { code: expect.any(String), approvalId: expect.any(String) } },
  });
  const meta = answer._meta?.["rayrun/error"] as ApprovalEnded;
  expect(answer.content[0]).toEqual({ type: "text", text: meta.message });
  return meta;
}

/**
 * The run records of the calls the code made, oldest first: every record but the executions' own
 * (kind code_mode, stage execute), which logs.test.ts and the chaining test in execute.test.ts check.
 */
export async function callRuns(g: Gw): Promise<RunRow[]> {
  return (await runs(g)).filter((r) => r.stage !== "execute");
}
