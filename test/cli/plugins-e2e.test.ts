// Plugins through the real local server (`wrangler dev`, both Workers, the
// demo upstream and the demo LLM provider), on the workspace `npm start` seeds
// (scripts/seed-demo.mjs, dev/examples/plugins): config `plugins` = redact, broken,
// temperature, then word-count auto-discovered. With the official MCP SDK client a
// plugin tool is listed and called and redact changes a tool's output; with the
// official `openai` client chat.params sets the temperature the provider receives.
// broken throws in both tool.execute.after and chat.params, and neither redact's
// nor temperature's effect is lost.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import { beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error -- plain ESM script without type declarations
import { DEMO_PLUGIN_ORDER, DEMO_PROVIDER_ID, seedDemo } from "../../scripts/seed-demo.mjs";
import { useSeededDemo } from "./seeded-demo.ts";

interface Demo {
  workspace: string;
  /** admin, hooks:read, hooks:write and tools:call. */
  key: string;
  plugins: boolean;
  /** A fresh one-use sign-in link for the console's demo admin user, minted on every run. */
  signInUrl: string;
}

/** A hook-run record as `GET …/hooks/logs` lists it (the fields used here). */
interface Run {
  kind: string;
  stage: string;
  plugin: string | null;
  outcome: string;
  code: string | null;
  toolName: string | null;
  requestId: string;
}

/** What the fake provider recorded (dev/provider/server.ts `ReceivedRequest`), the fields used here. */
interface Received {
  path: string;
  body: { temperature?: number; messages: unknown[] };
}

let demo: Demo;
const base = () => inject("serverUrl");

async function connect(): Promise<Client> {
  const client = new Client({ name: "plugins-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base()}/mcp/${demo.workspace}`), {
    requestInit: { headers: { authorization: `Bearer ${demo.key}` } },
  });
  await client.connect(transport);
  return client;
}

const callTool = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The demo upstream's recorded calls (dev/upstream/server.ts `RecordedCall`). */
async function upstreamCalls(): Promise<{ tool: string; arguments: unknown }[]> {
  const res = await fetch(`${inject("upstreamUrl")}/demo/_calls`);
  return (await res.json()) as { tool: string; arguments: unknown }[];
}

async function received(): Promise<Received[]> {
  const res = await fetch(`${inject("providerUrl")}/${DEMO_PROVIDER_ID}/_received`);
  return (await res.json()) as Received[];
}

async function pluginRuns(): Promise<Run[]> {
  const res = await fetch(`${base()}/v1/workspaces/${demo.workspace}/hooks/logs?kind=plugin&limit=200`, {
    headers: { authorization: `Bearer ${demo.key}` },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { items: Run[] }).items;
}

/** Run records are written after the response: polls until `match` finds as many as `count`. */
async function runsWhere(match: (run: Run) => boolean, count: number): Promise<Run[]> {
  for (let i = 0; i < 40; i++) {
    const runs = (await pluginRuns()).filter(match);
    if (runs.length >= count) return runs;
    await sleep(250);
  }
  return (await pluginRuns()).filter(match);
}

const outcomes = (runs: Run[]) =>
  runs.map((r) => `${r.plugin} ${r.stage} ${r.outcome}${r.code === null ? "" : ` ${r.code}`}`).toSorted();

const seeded = useSeededDemo("plugins-e2e");
beforeAll(() => {
  demo = seeded.demo() as Demo;
});

describe("the seeded demo workspace's plugins", () => {
  it("seeding again is a no-op; a workspace seeded before the plugin part gets just that part", async () => {
    const args = {
      url: base(),
      upstreamUrl: inject("upstreamUrl"),
      providerUrl: inject("providerUrl"),
      key: inject("bootstrapKey"),
      stateDir: seeded.args().stateDir,
    };
    const { signInUrl, ...stored } = demo;
    const again = { ...stored, signInUrl: expect.stringMatching(/\/sign-in#token=/) };
    expect(await seedDemo(args)).toEqual(again);
    const { plugins: _, ...older } = stored;
    writeFileSync(join(seeded.args().stateDir, "demo.json"), JSON.stringify(older));
    const upgraded = (await seedDemo(args)) as Demo;
    expect(upgraded).toEqual(again);
    // Each run mints a new link; the previous one stays usable once.
    expect(upgraded.signInUrl).not.toBe(signInUrl);
  });

  it("are deployed active, with the config's plugins order", async () => {
    expect(demo.plugins).toBe(true);
    const headers = { authorization: `Bearer ${demo.key}` };
    const listed = await fetch(`${base()}/v1/workspaces/${demo.workspace}/files?kind=plugin`, { headers });
    const { items } = (await listed.json()) as {
      items: { path: string; version: number; deployments: { active: { revisionId: string } | null } }[];
    };
    expect(items.map((f) => [f.path, f.version, f.deployments.active !== null])).toEqual([
      // Seeded twice (the second time as an older workspace's upgrade): the same source is still version 1.
      ["plugins/broken.ts", 1, true],
      ["plugins/redact.ts", 1, true],
      ["plugins/temperature.ts", 1, true],
      ["plugins/word-count.ts", 1, true],
    ]);
    const res = await fetch(`${base()}/v1/workspaces/${demo.workspace}/config`, { headers });
    const { config } = (await res.json()) as { config: Record<string, unknown> };
    expect(config.plugins).toEqual(["redact", "broken", "temperature"]);
    expect(config.plugins).toEqual(DEMO_PLUGIN_ORDER);
    // The LLM part of the seed is still there, after the plugin part was seeded twice: merged into it.
    expect(config.pre_llm_hook).toEqual({ source: "lib/request-policy.ts:transform", scope: "all" });
    expect(Object.keys(config.providers as object).toSorted()).toEqual(["anthropic", "openai"]);
  });
});

describe("plugins on the MCP path, with the official SDK client", () => {
  it("lists the plugin tool word_count beside the upstream's tools and calls it", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).toSorted()).toEqual([
      "always_fails",
      "echo",
      "search_release_notes",
      "word_count",
    ]);
    expect(tools.find((t) => t.name === "word_count")).toMatchObject({
      description: "Count the words in a text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    });
    const before = (await upstreamCalls()).length;
    const result = await callTool(client, "word_count", { text: "  the quick brown\nfox jumps " });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "5 words" }]);
    // The tool ran in the sandbox: nothing went upstream.
    expect((await upstreamCalls()).slice(before)).toEqual([]);
    await client.close();
  });

  it("redact changes the echo output the client sees; broken's throw after it leaves that in place", async () => {
    const client = await connect();
    const text = "card 4111 1111 1111 1111, pin 1234, 3 items";
    const before = (await upstreamCalls()).length;
    const result = await callTool(client, "echo", { text });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: "text", text: "card [redacted] [redacted] [redacted] [redacted], pin [redacted], 3 items" },
    ]);
    // Redaction is on the way back: the upstream got the text as sent.
    expect((await upstreamCalls()).slice(before)).toEqual([
      expect.objectContaining({ tool: "echo", arguments: { text } }),
    ]);
    await client.close();

    // One call's plugin runs: redact changed the result, broken threw (dropped, logged),
    // and the observers (broken's and word-count's tool.execute.before) passed.
    const [first] = await runsWhere((r) => r.toolName === "echo" && r.stage === "tool.execute.after", 2);
    const runs = await runsWhere((r) => r.requestId === first?.requestId, 4);
    expect(outcomes(runs)).toEqual([
      "broken tool.execute.after threw hook_threw",
      "broken tool.execute.before passed",
      "redact tool.execute.after continue",
      "word-count tool.execute.before passed",
    ]);
  });
});

describe("chat.params on the LLM path, with the official openai client", () => {
  it("the fake provider receives temperature 0.1; broken's throw before temperature changes nothing", async () => {
    const openai = new OpenAI({
      apiKey: demo.key,
      baseURL: `${base()}/llm/${demo.workspace}/openai/v1`,
      maxRetries: 0,
    });
    const messages = [{ role: "user" as const, content: "What temperature am I at?" }];
    const before = (await received()).length;
    const plain = await openai.chat.completions.create({ model: "gpt-demo", messages });
    expect(plain.choices[0]?.message.content).toBe("echo: What temperature am I at?");
    await openai.chat.completions.create({ model: "gpt-demo", messages, temperature: 0.9 });
    const got = (await received()).slice(before);
    expect(got.map((r) => [r.path, r.body.temperature])).toEqual([
      ["/v1/chat/completions", 0.1],
      ["/v1/chat/completions", 0.1],
    ]);
    expect(got[0]?.body.messages).toEqual(messages);

    const runs = await runsWhere((r) => r.stage === "chat.params", 4);
    expect(outcomes(runs.slice(0, 2))).toEqual([
      "broken chat.params threw hook_threw",
      "temperature chat.params continue",
    ]);
  });
});
