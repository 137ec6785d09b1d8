// Code Mode through the real local server (`wrangler dev`, the api Worker handing /mcp/* to the
// gateway) on the workspace `npm start` seeds (scripts/seed-demo.mjs), with the official MCP SDK
// client: discovery in Code Mode, then one `execute` calling the hooked `search_release_notes`
// (the example adapter) and the unhooked `echo` (no adapter; the demo's plugins still run), and
// the run records of both inner calls under their child request ids.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.ts";
import { useSeededDemo } from "./seeded-demo.ts";

interface Demo {
  workspace: string;
  /** admin, hooks:read, hooks:write and tools:call. */
  key: string;
}

interface Run {
  kind: string;
  toolName: string | null;
  stage: string;
  channel: string;
  outcome: string;
  code: string | null;
  plugin: string | null;
  requestId: string;
  mode: string;
}

const seeded = useSeededDemo("code-mode-e2e");
let demo: Demo;
let client: Client;

/** The demo upstream's record of the calls it received (shared by every demo-seeded workspace). */
async function upstreamCalls(): Promise<{ tool: string; arguments: unknown }[]> {
  const res = await fetch(`${inject("upstreamUrl")}/demo/_calls`);
  return (await res.json()) as { tool: string; arguments: unknown }[];
}

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

beforeAll(async () => {
  demo = seeded.demo() as Demo;
  client = new Client({ name: "code-mode-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${inject("serverUrl")}/mcp/${demo.workspace}?mode=code`), {
      requestInit: { headers: { authorization: `Bearer ${demo.key}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
});

describe("Code Mode through npm start's gateway, on the seeded demo workspace", () => {
  it("lists the three Code Mode tools and finds the workspace's tools by search", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).toSorted()).toEqual(["describe_tools", "execute", "search_tools"]);

    const found = await call("search_tools", { query: "release notes" });
    expect(found.isError ?? false).toBe(false);
    // The public contract's description, not the upstream's ("Search release notes").
    expect((found.structuredContent as { tools: unknown[] }).tools[0]).toEqual({
      name: "search_release_notes",
      description: "Search public release notes",
    });
  });

  it("describes the hooked tool by its public contract and the unhooked one by its upstream definition", async () => {
    const described = await call("describe_tools", {
      names: ["search_release_notes", "echo", "no_such_tool"],
    });
    const { declarations, missing } = described.structuredContent as {
      declarations: string;
      missing: string[];
    };
    expect(missing).toEqual(["no_such_tool"]);
    expect(declarations).toContain(
      "/** Search public release notes */\n  search_release_notes(args: Search_release_notesArgs): Promise<Search_release_notesResult>;",
    );
    expect(declarations).toContain("/** Echo the text back */\n  echo(args: EchoArgs): Promise<EchoResult>;");
    // The contract's `query`; the upstream's own argument is `q`, which the adapter's `before` fills in.
    expect(declarations).toMatch(/type Search_release_notesArgs = \{\n\s+query: string;\n\};/);
    expect(declarations).not.toMatch(/\bq: string/);
    expect(declarations).toMatch(/type EchoArgs = \{\n\s+text: string;/);
    expect(declarations).toContain("type EchoResult = { content: ToolContentBlock[] };");
  });

  it("runs code calling the hooked and the unhooked tool; the logs show both calls with their stages", async () => {
    const before = (await upstreamCalls()).length;
    const executed = await call("execute", {
      code: `
        const found = await tools.search_release_notes({ query: "code mode" });
        console.info("searched", { count: found.items.length });
        const echoed = await tools.echo({ text: found.items[0].title + " #20310506" });
        return { count: found.items.length, first: found.items[0].title, echoed: echoed.content[0].text };
      `,
    });
    expect(executed.isError ?? false, JSON.stringify(executed.content)).toBe(false);
    expect(executed.structuredContent).toEqual({
      result: {
        count: 2,
        first: "Release notes matching code mode",
        // The demo's redact plugin ran on the unhooked call's output, as in Direct Mode.
        echoed: "Release notes matching code mode #[redacted]",
      },
      logs: [{ level: "info", message: "searched", data: { count: 2 } }],
    });

    // Each call reached the upstream once, in order: the hooked one with `before`'s arguments.
    const calls = (await upstreamCalls()).slice(before);
    expect(calls.map((c) => [c.tool, c.arguments])).toEqual([
      ["search_release_notes", { q: "code mode" }],
      ["echo", { text: "Release notes matching code mode #20310506" }],
    ]);

    const requestId = String((executed._meta ?? {})["rayrun/requestId"]);
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    // The execution's request id lists its calls' records (`<id>.1`, `<id>.2`) with its own. Records
    // are written after the response (batched per isolate): poll until all this test expects are in.
    const path = `/v1/workspaces/${demo.workspace}/hooks/logs?requestId=${requestId}&limit=50`;
    let runs: Run[] = [];
    const of = (id: string) => runs.filter((r) => r.requestId === id);
    const complete = () =>
      of(`${requestId}.1`).filter((r) => r.kind === "tool_adapter").length === 2 &&
      of(`${requestId}.2`).some((r) => r.plugin === "redact" && r.stage === "tool.execute.after");
    for (let i = 0; i < 40 && !complete(); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      runs = (await api<{ items: Run[] }>(demo.key, "GET", path)).data.items;
    }
    const shape = (list: Run[]) =>
      list.map((r) => [r.kind, r.plugin ?? "-", r.stage, r.outcome, r.toolName ?? "-"].join(" ")).toSorted();
    // Nothing else: the execution's own id and its two calls' ids, every record marked as made from code.
    const ids = [requestId, `${requestId}.1`, `${requestId}.2`];
    expect(runs.filter((r) => !ids.includes(r.requestId))).toEqual([]);
    expect(runs.every((r) => r.mode === "code" && r.channel === "active")).toBe(true);
    // The hooked call: the adapter's `before` and `after`, around its one upstream call.
    expect(shape(of(`${requestId}.1`).filter((r) => r.kind !== "plugin"))).toEqual([
      "tool_adapter - after return search_release_notes",
      "tool_adapter - before continue search_release_notes",
    ]);
    // The unhooked call: no adapter ran, only the workspace's plugins (broken's throw dropped, redact applied).
    const echoed = of(`${requestId}.2`);
    expect(echoed.filter((r) => r.kind !== "plugin")).toEqual([]);
    expect(shape(echoed)).toEqual(
      expect.arrayContaining([
        "plugin broken tool.execute.after threw echo",
        "plugin redact tool.execute.after continue echo",
      ]),
    );
    expect(echoed.some((r) => r.stage === "tool.execute.before")).toBe(true);
  });
});
