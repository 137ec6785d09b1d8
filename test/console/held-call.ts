// A call held for approval in the demo workspace: an adapter on the echo tool that asks a person about
// texts starting with "approve:", deployed through the API, and a call made through the gateway with the
// official MCP SDK client, as an agent would make it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { api, HOLDING_ECHO } from "../cli/api.ts";
import { serverUrl } from "./browser.ts";

export interface Approval {
  id: string;
  status: string;
  toolName: string;
  revisionId: string | null;
}

/** Deploys the holding adapter active on the demo's echo tool: save, test, deploy, as the API asks. */
export async function deployHoldingEcho(ws: string, key: string, tool: string): Promise<string> {
  const hook = `/v1/workspaces/${ws}/tools/${tool}/hook`;
  const etag = (await api(key, "GET", hook)).headers.get("etag") ?? "";
  const saved = await api<{ version: number }>(
    key,
    "PUT",
    `${hook}/draft`,
    { source: HOLDING_ECHO },
    { "if-match": etag },
  );
  await api(key, "POST", `${hook}/test`, { stage: "before", arguments: { text: "x" } });
  const deployed = await api<{ revision: { id: string } }>(key, "POST", `${hook}/deployments`, {
    version: saved.data.version,
    channel: "active",
  });
  return deployed.data.revision.id;
}

/** One echo call the adapter holds: answers the pending approval's id. */
export async function heldCall(ws: string, key: string, text: string): Promise<string> {
  const client = new Client({ name: "console-approvals", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl()}/mcp/${ws}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const result = (await client.callTool({ name: "echo", arguments: { text } })) as CallToolResult;
    const error = (result._meta as Record<string, { code: string; approvalId?: string }> | undefined)?.[
      "rayrun/error"
    ];
    expect(error?.code, JSON.stringify(result)).toBe("approval_required");
    return error?.approvalId ?? "";
  } finally {
    await client.close();
  }
}
