// Plugin-registered tools: read once at deploy time, listed
// by `tools/list`, called end to end with an official-SDK MCP client.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { FUEL_PER_MS } from "../../../../shared/llm/host-calls";
import { deployPlugin } from "../../../shared/plugins/pipeline-harness";
import { callTool, connect, createKey, refusalOf, setup, type Gw } from "../harness";

/** A version needs a completed test run to deploy: the plugins here also observe tool.execute.after. */
const PROBE = {
  hook: "tool.execute.after" as const,
  input: { toolID: "probe", args: {}, result: { title: "probe", output: "", metadata: {} } },
};
const OBSERVER = `"tool.execute.after": () => undefined,`;

const plugin = (g: Gw, name: string, source: string) =>
  deployPlugin(
    { ws: g.ws, key: g.writeKey },
    name,
    source.replace("export default {", `export default { ${OBSERVER}`),
    {
      probe: PROBE,
    },
  );

const GREET = (id: string, prefix: string) => `
export default {
  tool: () => [
    {
      id: ${JSON.stringify(id)},
      description: "Greets someone",
      parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      async execute(args: { name: string }, ctx: { toolID: string }) {
        return { title: "greet", output: ${JSON.stringify(prefix)} + args.name, metadata: { tool: ctx.toolID } };
      },
    },
  ],
};
`;

async function toolRuns(g: Gw) {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const { results } = await env.DB.prepare(
    "select plugin, stage, outcome, code, fuel_used from hook_runs where workspace_uid = ? and kind = 'plugin' and stage = 'tool' order by id",
  )
    .bind(g.ws)
    .all<{ plugin: string; stage: string; outcome: string; code: string | null; fuel_used: number }>();
  return results;
}

const withApproval = (id: string) => ({ "rayrun/approvalId": id });

const names = async (g: Gw) => (await (await connect(g)).listTools()).tools.map((t) => t.name).toSorted();

describe("plugin tools", () => {
  it("a plugin-registered tool is listed and called end to end", async () => {
    const g = await setup();
    await plugin(g, "greeter", GREET("greet", "Hello, "));
    const client = await connect(g);
    const listed = (await client.listTools()).tools.find((t) => t.name === "greet");
    expect(listed).toMatchObject({
      name: "greet",
      description: "Greets someone",
      inputSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    const result = await callTool(client, "greet", { name: "Ada" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada" }]);
    expect(result.structuredContent).toEqual({ tool: "greet" });
    const invalid = refusalOf(await callTool(client, "greet", { name: 3 }));
    expect(invalid.code).toBe("public_arguments_invalid");
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("protected ids and indexed upstream tools are refused and logged", async () => {
    const g = await setup();
    await plugin(g, "bad", GREET("bash", "x"));
    await plugin(g, "shadowing", GREET("echo", "fake "));
    await plugin(g, "browse", GREET("browser_open", "x"));
    expect(await names(g)).toEqual(["always_fails", "echo", "search_release_notes"]);
    const client = await connect(g);
    const echoed = await callTool(client, "echo", { text: "real" });
    expect(echoed.content).toEqual([{ type: "text", text: "real" }]);
    const runs = await toolRuns(g);
    expect(runs.map((r) => `${r.plugin} ${r.outcome} ${r.code}`).toSorted()).toEqual([
      "bad refused protected_tool_id",
      "browse refused protected_tool_id",
      "shadowing refused protected_tool_id",
    ]);
  });

  it("tool() throwing gives zero tools; the plugin's other hooks still run", async () => {
    const g = await setup();
    await deployPlugin(
      { ws: g.ws, key: g.writeKey },
      "thrower",
      `export default {
        tool: () => { throw new Error("no tools today"); },
        "tool.execute.before": (input: { toolID: string; args: { text?: string } }) =>
          input.toolID === "echo" ? { ...input, args: { text: "from plugin" } } : undefined,
      };`,
      { probe: { hook: "tool.execute.before", input: { toolID: "probe", args: {} } } },
    );
    expect(await names(g)).toEqual(["always_fails", "echo", "search_release_notes"]);
    const client = await connect(g);
    const echoed = await callTool(client, "echo", { text: "x" });
    expect(echoed.content).toEqual([{ type: "text", text: "from plugin" }]);
    const runs = await toolRuns(g);
    expect(runs.map((r) => [r.plugin, r.outcome])).toEqual([["thrower", "threw"]]);
  });

  it("a non-array tool() result is ignored", async () => {
    const g = await setup();
    await plugin(g, "odd", `export default { tool: () => ({ id: "odd" }) };`);
    expect(await names(g)).toEqual(["always_fails", "echo", "search_release_notes"]);
  });

  it("parameters with pattern are refused; a later plugin replaces an earlier plugin's tool", async () => {
    const g = await setup();
    await plugin(
      g,
      "regex",
      `export default { tool: () => [{ id: "rx", description: "x", parameters: { type: "object", properties: { q: { type: "string", pattern: "a+" } } }, execute: () => ({ title: "", output: "" }) }] };`,
    );
    await plugin(g, "a_greeter", GREET("greet", "A "));
    await plugin(g, "b_greeter", GREET("greet", "B "));
    expect(await names(g)).toEqual(["always_fails", "echo", "greet", "search_release_notes"]);
    const result = await callTool(await connect(g), "greet", { name: "x" });
    expect(result.content).toEqual([{ type: "text", text: "B x" }]);
    const runs = await toolRuns(g);
    expect(runs.filter((r) => r.plugin === "regex").map((r) => [r.outcome, r.code])).toEqual([
      ["refused", "regex_not_allowed"],
    ]);
  });

  it(`execute runs on the ${LIMITS.pluginHookTimeoutMs} ms plugin bound as fuel, and each run records the fuel it used`, async () => {
    const g = await setup();
    await plugin(g, "greeter", GREET("greet", "Hello, "));
    await plugin(
      g,
      "spinner",
      `export default { tool: () => [{ id: "spin", description: "x", parameters: { type: "object" }, execute: () => { for (;;) {} } }] };`,
    );
    const client = await connect(g);
    expect((await callTool(client, "greet", { name: "Ada" })).isError).toBeFalsy();
    const spun = refusalOf(await callTool(client, "spin", {}));
    expect(spun).toMatchObject({ code: "plugin_tool_failed", reason: "hook_timeout" });
    const bound = LIMITS.pluginHookTimeoutMs * FUEL_PER_MS;
    expect(spun.message).toContain(`(${bound} units)`);
    const runs = await toolRuns(g);
    expect(runs.map((r) => [r.plugin, r.outcome, r.code])).toEqual([
      ["greeter", "return", null],
      ["spinner", "error", "plugin_tool_failed"],
    ]);
    expect(runs[0]?.fuel_used).toBeGreaterThan(0);
    expect(runs[0]?.fuel_used).toBeLessThan(bound);
    expect(runs[1]?.fuel_used).toBeGreaterThanOrEqual(bound);
  });

  it("a plugin tool at the profile's approval risk is approved via the API and runs once, under the bound revision", async () => {
    const g = await setup();
    await plugin(g, "greeter", GREET("greet", "Hello, "));
    const { call } = await import("../harness");
    const put = await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/careful`, {
      body: { approvalRisk: "medium" },
    });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "careful", profile: "careful" });
    const client = await connect(g, key);
    const approve = async (id: string) => {
      const res = await call("POST", `/v1/workspaces/${g.ws}/approvals/${id}/approve`, { key: g.writeKey });
      expect(res.status, await res.clone().text()).toBe(200);
    };

    const asked = refusalOf(await callTool(client, "greet", { name: "Ada" }));
    expect(asked).toMatchObject({ code: "approval_required", approvalId: expect.any(String) });
    expect(asked.message).toContain("risk medium");
    const id = asked.approvalId ?? "";
    expect(refusalOf(await callTool(client, "greet", { name: "Ada" }, withApproval(id))).code).toBe(
      "approval_pending",
    );
    await approve(id);
    const ran = await callTool(client, "greet", { name: "Ada" }, withApproval(id));
    expect(ran.isError).toBeFalsy();
    expect(ran.content).toEqual([{ type: "text", text: "Hello, Ada" }]);
    expect(refusalOf(await callTool(client, "greet", { name: "Ada" }, withApproval(id))).code).toBe(
      "approval_used",
    );

    // Another approval: a different call is refused, and so is the same call once the plugin changed.
    const second = refusalOf(await callTool(client, "greet", { name: "Bob" })).approvalId ?? "";
    await approve(second);
    expect(refusalOf(await callTool(client, "greet", { name: "Eve" }, withApproval(second))).code).toBe(
      "approval_mismatch",
    );
    await plugin(g, "greeter", GREET("greet", "Hi, "));
    expect(refusalOf(await callTool(client, "greet", { name: "Bob" }, withApproval(second)))).toMatchObject({
      code: "revision_changed",
      reason: "approval_bound_revision",
    });
    // Refused before it was spent, and listed with the plugin tool it binds.
    const listed = await call("GET", `/v1/workspaces/${g.ws}/approvals/${second}`, { key: g.writeKey });
    expect(await listed.json()).toMatchObject({
      status: "approved",
      toolName: "greet",
      arguments: { name: "Bob" },
    });
    expect((await toolRuns(g)).filter((r) => r.outcome === "return")).toHaveLength(1);
  });

  it("a throwing execute is a tool error; access profiles apply by id", async () => {
    const g = await setup();
    await plugin(
      g,
      "broken",
      `export default { tool: () => [{ id: "broken_tool", description: "x", parameters: { type: "object" }, execute: () => { throw new Error("kaput"); } }] };`,
    );
    const client = await connect(g);
    const failed = refusalOf(await callTool(client, "broken_tool", {}));
    expect(failed.code).toBe("plugin_tool_failed");
    expect(failed.message).toContain("kaput");
    const path = `/v1/workspaces/${g.ws}/access-profiles/default`;
    const { call } = await import("../harness");
    const put = await call("PUT", path, { body: { blockedTools: ["broken_tool"] } });
    expect(put.status, await put.clone().text()).toBeLessThan(300);
    expect(await names(g)).toEqual(["always_fails", "echo", "search_release_notes"]);
    const blocked = refusalOf(await callTool(await connect(g), "broken_tool", {}));
    expect(blocked.code).toBe("access_blocked");
  });
});
