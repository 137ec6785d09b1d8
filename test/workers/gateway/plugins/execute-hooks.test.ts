// Plugins' tool.execute.before / tool.execute.after on the upstream tool path, end to end with
// an official-SDK MCP client against the gateway and a real SDK upstream.
import { waitOnExecutionContext, createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deployFileSource, setConfig } from "../../../helpers/files";
import { deployPlugin } from "../../../shared/plugins/pipeline-harness";
import { call, callTool, connect, json, refusalOf, setup, type Gw } from "../harness";

const BEFORE_PROBE = { hook: "tool.execute.before" as const, input: { toolID: "probe", args: {} } };

const AFTER_PROBE = {
  hook: "tool.execute.after" as const,
  input: { toolID: "probe", args: {}, result: { title: "probe", output: "", metadata: {} } },
};

/** Deploys `plugins/<name>.ts`, test-run with its first tool.execute hook. */
const plugin = (g: Gw, name: string, source: string) =>
  deployPlugin({ ws: g.ws, key: g.writeKey }, name, source, {
    probe: source.includes('"tool.execute.before"') ? BEFORE_PROBE : AFTER_PROBE,
  });

interface PluginRun {
  kind: string;
  plugin: string | null;
  stage: string;
  outcome: string;
  code: string | null;
  tool_name: string | null;
}

async function pluginRuns(g: Gw): Promise<PluginRun[]> {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const { results } = await env.DB.prepare(
    "select kind, plugin, stage, outcome, code, tool_name from hook_runs where workspace_uid = ? and kind = 'plugin' and stage like 'tool.execute.%' order by id",
  )
    .bind(g.ws)
    .all<PluginRun>();
  return results;
}

const APPEND = (suffix: string) => `
export default {
  "tool.execute.before": (input: { toolID: string; args: { text?: string } }) =>
    input.toolID === "echo" ? { ...input, args: { ...input.args, text: (input.args.text ?? "") + ${JSON.stringify(suffix)} } } : undefined,
};
`;

describe("plugins on the upstream tool path", () => {
  it("tool.execute.before changes what the upstream receives", async () => {
    const g = await setup();
    await plugin(g, "bang", APPEND("!"));
    const client = await connect(g);
    const result = await callTool(client, "echo", { text: "hi" });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "hi!" }]);
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "hi!" }]);
    expect(await pluginRuns(g)).toEqual([
      {
        kind: "plugin",
        plugin: "bang",
        stage: "tool.execute.before",
        outcome: "continue",
        code: null,
        tool_name: "echo",
      },
    ]);
  });

  it("an invalid call left by tool.execute.before is refused by the upstream schema", async () => {
    const g = await setup();
    await plugin(
      g,
      "breaker",
      `export default {
        "tool.execute.before": (input: { toolID: string; args: object }) =>
          input.toolID === "echo" ? { ...input, args: { text: 42 } } : undefined,
      };`,
    );
    const client = await connect(g);
    const refused = refusalOf(await callTool(client, "echo", { text: "hi" }));
    expect(refused.code).toBe("upstream_arguments_invalid");
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("tool.execute.after redaction changes what the client sees, also on an upstream error", async () => {
    const g = await setup();
    await plugin(
      g,
      "redact",
      `export default {
        "tool.execute.after": (input: { result: { output: string } }) => ({
          ...input,
          result: { ...input.result, output: input.result.output.replaceAll("secret", "[redacted]") },
        }),
      };`,
    );
    const client = await connect(g);
    const ok = await callTool(client, "echo", { text: "my secret" });
    expect(ok.content).toEqual([{ type: "text", text: "my [redacted]" }]);
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "my secret" }]);
    const failed = await callTool(client, "always_fails", { reason: "the secret" });
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: "text", text: "upstream failure: the [redacted]" }]);
    const runs = await pluginRuns(g);
    expect(runs.map((r) => [r.plugin, r.stage, r.outcome, r.tool_name])).toEqual([
      ["redact", "tool.execute.after", "continue", "echo"],
      ["redact", "tool.execute.after", "continue", "always_fails"],
    ]);
  });

  it("after sees the joined text, structuredContent and isError as metadata", async () => {
    const g = await setup();
    await plugin(
      g,
      "inspect",
      `export default {
        "tool.execute.after": (input: { toolID: string; args: unknown; result: { title: string; output: string; metadata: unknown } }) => ({
          ...input,
          result: { ...input.result, output: JSON.stringify({ toolID: input.toolID, args: input.args, title: input.result.title, metadata: input.result.metadata }) },
        }),
      };`,
    );
    const client = await connect(g);
    const result = await callTool(client, "search_release_notes", { q: "x" });
    const seen = JSON.parse((result.content[0] as { text: string }).text) as unknown;
    expect(seen).toEqual({
      toolID: "search_release_notes",
      args: { q: "x" },
      title: "search_release_notes",
      metadata: {
        isError: false,
        structuredContent: {
          items: [
            { title: "Release notes matching x", score: 0.9 },
            { title: "Older release", score: 0.4 },
          ],
        },
      },
    });
    // structuredContent is the upstream's (only the text is replaced).
    expect(result.structuredContent).toMatchObject({ items: expect.any(Array) });
  });

  it("a throwing plugin between two others leaves their effects, and is logged", async () => {
    const g = await setup();
    await plugin(g, "a_first", APPEND("a"));
    await plugin(
      g,
      "b_throws",
      `export default { "tool.execute.before": (input: { toolID: string }) => { if (input.toolID === "echo") throw new Error("boom"); return undefined; } };`,
    );
    await plugin(g, "c_last", APPEND("c"));
    const client = await connect(g);
    const result = await callTool(client, "echo", { text: "x" });
    expect(result.content).toEqual([{ type: "text", text: "xac" }]);
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: "xac" }]);
    const runs = await pluginRuns(g);
    expect(runs.map((r) => [r.plugin, r.outcome])).toEqual([
      ["a_first", "continue"],
      ["b_throws", "threw"],
      ["c_last", "continue"],
    ]);
  });

  it("a new plugins order in the config applies from the next call of a warm isolate", async () => {
    const g = await setup();
    await plugin(g, "a_first", APPEND("a"));
    await plugin(g, "b_second", APPEND("b"));
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "x" })).content).toEqual([{ type: "text", text: "xab" }]);
    const path = `/v1/workspaces/${g.ws}/config`;
    const current = await json<{ etag: string }>(await call("GET", path), 200);
    await json(
      await call("PUT", path, { body: { plugins: ["b_second"] }, headers: { "if-match": current.etag } }),
      200,
    );
    expect((await callTool(client, "echo", { text: "y" })).content).toEqual([{ type: "text", text: "yba" }]);
  });

  it("a plugin's rayrun.lambda follows the sys_lambda gate, and a gate change applies from the next call", async () => {
    const g = await setup();
    const w = { ws: g.ws, key: g.writeKey };
    await deployFileSource(
      w,
      "lib/upper.ts",
      `export function upper(args: { text: string }) { return args.text.toUpperCase(); }`,
      { export: "upper", input: { text: "probe" } },
    );
    await plugin(
      g,
      "shout",
      `export default {
        "tool.execute.before": async (input: { toolID: string; args: { text?: string } }) => {
          if (input.toolID !== "echo") return undefined;
          let text: string;
          try {
            text = (await rayrun.lambda({ source: "lib/upper.ts:upper", args: { text: input.args.text ?? "" } })) as string;
          } catch (error) {
            text = "refused: " + String(error).includes("sys_lambda");
          }
          return { ...input, args: { ...input.args, text } };
        },
      };`,
    );
    const client = await connect(g);
    expect((await callTool(client, "echo", { text: "hi" })).content).toEqual([
      { type: "text", text: "refused: true" },
    ]);
    await setConfig(g, { code_execution: { sys_lambda: true } });
    expect((await callTool(client, "echo", { text: "hi" })).content).toEqual([{ type: "text", text: "HI" }]);
  });

  it("without plugins the call is unchanged and logs no plugin runs", async () => {
    const g = await setup();
    const client = await connect(g);
    const result = await callTool(client, "echo", { text: "plain" });
    expect(result.content).toEqual([{ type: "text", text: "plain" }]);
    expect(await pluginRuns(g)).toEqual([]);
  });
});
