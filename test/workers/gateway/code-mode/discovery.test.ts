// Code Mode on the MCP endpoint: `?mode=code` lists the Code Mode tools instead
// of the workspace's, and Code discovery shows each tool as Direct Mode's
// tools/list shows it (the adapter's public contract where the active
// revision has one), as TypeScript with the descriptions as JSDoc.
import { describe, expect, it } from "vitest";
import { SEED_ADAPTER } from "../adapters";
import { connect, deploy, rawMcp, setup } from "../harness";
import { callCode, connectCode } from "./harness";

describe("Code Mode on /mcp/{ws}?mode=code", () => {
  it("tools/list offers search_tools, describe_tools and execute; without the mode, the workspace's tools", async () => {
    const g = await setup();
    const code = await connectCode(g);
    expect((await code.listTools()).tools.map((t) => t.name)).toEqual([
      "search_tools",
      "describe_tools",
      "execute",
    ]);
    const direct = await connect(g);
    expect((await direct.listTools()).tools.map((t) => t.name)).toContain("echo");
    // A workspace tool is not callable directly in Code Mode.
    await expect(code.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toThrow(
      /Unknown tool: echo/,
    );
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an unknown mode is refused before the protocol starts", async () => {
    const g = await setup();
    const res = await rawMcp(
      g,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { ws: `${g.ws}?mode=turbo` },
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("Unknown mode") } });
  });

  it("search_tools ranks tools by the query's words, with one-line descriptions", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const answer = await callCode(client, "search_tools", { query: "release notes" });
    expect(answer.structuredContent).toEqual({
      tools: [{ name: "search_release_notes", description: "Search release notes" }],
    });
    expect(answer.content).toEqual([{ type: "text", text: "search_release_notes: Search release notes" }]);
    const all = await callCode(client, "search_tools", { query: "", limit: 2 });
    expect((all.structuredContent as { tools: unknown[] }).tools).toHaveLength(2);
    const bad = await callCode(client, "search_tools", { query: 1 });
    expect(bad).toMatchObject({
      isError: true,
      _meta: { "rayrun/error": { code: "public_arguments_invalid" } },
    });
  });

  it("describe_tools declares the public contract where the active revision has one, the upstream's otherwise", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const before = await callCode(client, "describe_tools", { names: ["search_release_notes", "echo"] });
    const upstream = (before.structuredContent as { declarations: string }).declarations;
    expect(upstream).toContain(
      "/** Search release notes */\n  search_release_notes(args: Search_release_notesArgs)",
    );
    expect(upstream).toMatch(/type Search_release_notesArgs = \{[^}]*q: string/);
    // echo declares no output schema: it resolves to its content blocks.
    expect(upstream).toContain("type EchoResult = { content: ToolContentBlock[] };");
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const after = await callCode(client, "describe_tools", { names: ["search_release_notes"] });
    const contract = (after.structuredContent as { declarations: string }).declarations;
    expect(contract).toContain("/** Search public release notes */");
    expect(contract).toMatch(/type Search_release_notesArgs = \{[^}]*query: string/);
    expect(contract).not.toMatch(/\bq: string/);
    // Exactly what Direct Mode lists for the same key.
    const listed = (await (await connect(g)).listTools()).tools.find(
      (t) => t.name === "search_release_notes",
    );
    expect(listed?.description).toBe("Search public release notes");
    expect(listed?.inputSchema.properties).toHaveProperty("query");
  });
});
