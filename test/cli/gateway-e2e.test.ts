// The gateway through the real local server (`wrangler dev`, both Workers, the api Worker
// handing /mcp/* to the gateway) with the official MCP SDK client in Node: list tools with
// public contracts; a rewrite, a reject, an approval dispatched once, an upstream error,
// a shadow deployment, and the logs of every case.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { api } from "./api.ts";

const base = () => inject("serverUrl");

const SEED = readFileSync(new URL("../../dev/examples/search-release-notes.ts", import.meta.url), "utf8");
const REJECTING_SEED = SEED.replace(
  "context.log.info(",
  `if (args.query === "secret") return { action: "reject", reason: "query_forbidden", message: "Secret queries are not allowed" };
    context.log.info(`,
);
const ECHO = (tag: string) => `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: a }) {
    const text = String(a.text);
    if (text.startsWith("approve:")) return { action: "approval", arguments: { text: text.slice(8) }, reason: "Echoing needs a human" };
    return { action: "continue", arguments: { text: text + " ${tag}" } };
  },
});
`;
const FAILS = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  after: () => ({ action: "fail", reason: "after_ran", message: "after must not run on upstream errors" }),
});
`;

const rayrunError = (result: CallToolResult) =>
  (result._meta as Record<string, { code: string; approvalId?: string; reason?: string }> | undefined)?.[
    "rayrun/error"
  ];

describe("the MCP gateway through the local server, with the official SDK client", () => {
  it("rewrites, rejects, asks for approval, passes upstream errors, runs shadow and logs every case", async () => {
    const boot = inject("bootstrapKey");
    const ws = (await api<{ uid: string }>(boot, "POST", "/v1/workspaces", { name: "gateway-e2e" })).data.uid;
    const W = `/v1/workspaces/${ws}`;
    const admin = (
      await api<{ key: string }>(boot, "POST", `${W}/keys`, {
        scopes: ["admin", "hooks:write", "tools:call"],
        actor: "e2e",
      })
    ).data.key;
    const upstream = `${inject("upstreamUrl")}/${ws}`;
    const svc = (
      await api<{ uid: string }>(admin, "POST", `${W}/services`, {
        name: "demo",
        url: `${upstream}/mcp`,
        payloadCapture: true,
      })
    ).data.uid;
    const tools = (
      await api<{ tools: { uid: string; upstreamName: string }[] }>(
        admin,
        "POST",
        `${W}/services/${svc}/refresh`,
      )
    ).data.tools;
    const uid = (name: string) => tools.find((t) => t.upstreamName === name)?.uid ?? "";

    async function deploy(
      tool: string,
      source: string,
      args: unknown,
      channel: "active" | "shadow",
      result?: unknown,
    ) {
      const hook = `${W}/tools/${uid(tool)}/hook`;
      const etag = (await api(admin, "GET", hook)).headers.get("etag") ?? "";
      const saved = await api<{ version: number }>(
        admin,
        "PUT",
        `${hook}/draft`,
        { source },
        { "if-match": etag },
      );
      const stage =
        result === undefined
          ? { stage: "before", arguments: args }
          : { stage: "after", arguments: args, result };
      await api(admin, "POST", `${hook}/test`, stage);
      await api(admin, "POST", `${hook}/deployments`, { version: saved.data.version, channel });
    }
    await deploy("search_release_notes", REJECTING_SEED, { query: "x" }, "active");
    await deploy("echo", ECHO("(active)"), { text: "x" }, "active");
    await deploy("echo", ECHO("(shadow)"), { text: "x" }, "shadow");
    await deploy("always_fails", FAILS, {}, "active", { content: [] });

    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base()}/mcp/${ws}`), {
        requestInit: { headers: { authorization: `Bearer ${admin}` } },
      }),
    );
    const listed = await client.listTools();
    const search = listed.tools.find((t) => t.name === "search_release_notes");
    expect(search?.description).toBe("Search public release notes");
    expect(search?.inputSchema.properties).toEqual({ query: { type: "string" } });

    const rewritten = (await client.callTool({ name: "echo", arguments: { text: "hi" } })) as CallToolResult;
    expect(rewritten.isError ?? false).toBe(false);
    expect(rewritten.content).toEqual([{ type: "text", text: "hi (active)" }]);

    const rejected = (await client.callTool({
      name: "search_release_notes",
      arguments: { query: "secret" },
    })) as CallToolResult;
    expect(rejected.isError).toBe(true);
    expect(rayrunError(rejected)).toMatchObject({ code: "rejected", reason: "query_forbidden" });

    const searched = (await client.callTool({
      name: "search_release_notes",
      arguments: { query: "hooks" },
    })) as CallToolResult;
    expect(searched.structuredContent).toEqual({
      items: expect.arrayContaining([expect.objectContaining({ title: "Release notes matching hooks" })]),
    });

    const held = (await client.callTool({
      name: "echo",
      arguments: { text: "approve:ship it" },
    })) as CallToolResult;
    const approvalId = rayrunError(held)?.approvalId ?? "";
    expect(rayrunError(held)?.code).toBe("approval_required");
    await api(admin, "POST", `${W}/approvals/${approvalId}/approve`);
    const approved = (await client.callTool({
      name: "echo",
      arguments: { text: "approve:ship it" },
      _meta: { "rayrun/approvalId": approvalId },
    })) as CallToolResult;
    expect(approved.content).toEqual([{ type: "text", text: "ship it" }]);
    const again = (await client.callTool({
      name: "echo",
      arguments: { text: "approve:ship it" },
      _meta: { "rayrun/approvalId": approvalId },
    })) as CallToolResult;
    expect(rayrunError(again)?.code).toBe("approval_used");

    const failed = (await client.callTool({
      name: "always_fails",
      arguments: { reason: "down" },
    })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: "text", text: "upstream failure: down" }]);
    expect(rayrunError(failed)).toBeUndefined();
    await client.close();

    const calls = await (await fetch(`${upstream}/_calls`)).json();
    expect(calls.map((c: { tool: string; arguments: unknown }) => [c.tool, c.arguments])).toEqual([
      ["echo", { text: "hi (active)" }],
      ["search_release_notes", { q: "hooks" }],
      ["echo", { text: "ship it" }],
      ["always_fails", { reason: "down" }],
    ]);

    // Log writes (batched per isolate) and shadow runs happen after the responses: poll until every
    // record this test expects is there.
    type Log = {
      toolName: string;
      stage: string;
      channel: string;
      outcome: string;
      code: string | null;
      shadowDiffered: boolean | null;
    };
    let logs: Log[] = [];
    const seen = (outcome: string, toolName: string, channel = "active") =>
      logs.some((l) => l.outcome === outcome && l.toolName === toolName && l.channel === channel);
    const afterRecords = () => logs.filter((l) => l.toolName === "always_fails" && l.stage === "after");
    const complete = () =>
      seen("continue", "echo") &&
      seen("reject", "search_release_notes") &&
      seen("approval", "echo") &&
      seen("continue", "echo", "shadow") &&
      logs.some((l) => l.channel === "shadow" && l.shadowDiffered === true) &&
      afterRecords().length > 0;
    for (let i = 0; i < 40 && !complete(); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      logs = (await api<{ items: Log[] }>(admin, "GET", `${W}/hooks/logs?limit=200`)).data.items;
    }
    expect(seen("continue", "echo")).toBe(true);
    expect(seen("reject", "search_release_notes")).toBe(true);
    expect(seen("approval", "echo")).toBe(true);
    expect(seen("continue", "echo", "shadow")).toBe(true);
    // "hi" became "hi (active)" live and "hi (shadow)" in the shadow: recorded as differing.
    expect(logs.some((l) => l.channel === "shadow" && l.shadowDiffered === true)).toBe(true);
    // The upstream error skipped `after`: recorded as passed with the upstream_error code, never as its "fail".
    expect(afterRecords().map((l) => [l.outcome, l.code])).toEqual([["passed", "upstream_error"]]);
  });
});
