// The plugins of docs/plugins.md do what the page says: deployed through the
// files API as the page deploys them, then run as the product runs them: the
// plugin pipeline and chat.params on the LLM path, and the tool hooks and plugin
// tools through the gateway with the demo upstream.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { readWorkspaceConfig } from "../../shared/config";
import type { Json, JsonObject } from "../../shared/json";
import type { NeutralRequest } from "../../shared/llm/request";
import { runChatParams } from "../../shared/plugins/chat-params";
import { afterPayload, beforePayload } from "../../workers/gateway/plugins/execute-payloads";
import { deployFileSource } from "../helpers/files";
import {
  deployPlugin,
  pluginWorkspace,
  plugins,
  runHook,
  setConfig,
  type PluginWorkspace,
} from "../shared/plugins/pipeline-harness";
import { callTool, connect, issuedSession, runs, setup } from "../workers/gateway/harness";
import { warmCompiler } from "./harness";
import { docText, snippet, snippetObject } from "./snippets";

beforeAll(warmCompiler, 180_000);

/** A tool result as tool.execute.after gets it. */
const toolResult = (output: string) => ({ title: "echo", output, metadata: { isError: false } });

const CALL = { requestId: "req_docs", workspaceUid: "ws_docs", calledAt: "2026-03-04T05:06:07.089Z" };

/** The request's options after the workspace's chat.params plugins. */
async function chatParams(w: PluginWorkspace, request: NeutralRequest) {
  const config = await readWorkspaceConfig(env.DB, w.ws);
  const out = await runChatParams(env, {
    workspaceUid: w.ws,
    requestId: crypto.randomUUID(),
    request,
    plugins: await plugins(w),
    provider: "openai",
    config,
  });
  return out.request;
}

const request = (model: string, options: NeutralRequest["options"] = {}): NeutralRequest => ({
  model,
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  options,
});

describe("defaults.ts", () => {
  it("deploys with the page's test input; every model call gets temperature 0.1; only bash calls get a timeout", async () => {
    const w = await pluginWorkspace();
    const command = /^npx rayrun files test plugins\/defaults\.ts --hook (\S+) --input '([^']*)'$/m.exec(
      docText("plugins"),
    );
    expect(command).not.toBeNull();
    await deployFileSource(w, "plugins/defaults.ts", snippet("plugins/defaults.ts"), {
      hook: command?.[1],
      input: JSON.parse(command?.[2] ?? "") as Json,
    });

    expect((await chatParams(w, request("gpt-4o", { temperature: 0.9 }))).options.temperature).toBe(0.1);

    const bash = await runHook<JsonObject>(
      w,
      "tool.execute.before",
      beforePayload("bash", { command: "ls" }, CALL),
    );
    expect(bash.value).toEqual(beforePayload("bash", { command: "ls", timeout: 10_000 }, CALL));
    const other = beforePayload("fs_read", { path: "a.txt" }, CALL);
    const read = await runHook<JsonObject>(w, "tool.execute.before", other);
    expect(read.value).toEqual(other);
    expect(read.records.map((r) => r.outcome)).toEqual(["passed"]);
  });
});

describe("audit.ts through the gateway", () => {
  it("logs the tool, the call's request id, the client's loop and its session, and changes nothing", async () => {
    const g = await setup();
    await deployFileSource({ ws: g.ws, key: g.writeKey }, "plugins/audit.ts", snippet("plugins/audit.ts"), {
      hook: "tool.execute.before",
      input: beforePayload("probe", {}, CALL),
    });
    const client = await connect(g, g.callKey, { headers: { "x-rayrun-loop": "researcher" } });
    const result = await callTool(client, "echo", { text: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    const requestId = result._meta?.["rayrun/requestId"];

    const record = (await runs(g)).find((r) => r.stage === "tool.execute.before");
    expect(record).toMatchObject({ outcome: "passed", request_id: requestId });
    expect(JSON.parse(record?.details ?? "{}")).toMatchObject({
      logs: [
        {
          level: "info",
          message: "tool call",
          data: { tool: "echo", requestId, loop: "researcher", session: issuedSession(client) },
        },
      ],
    });
    expect(issuedSession(client)).toEqual(expect.any(String));
  });
});

describe("typed.ts", () => {
  it("sets temperature 0.1 and redacts runs of four or more digits in tool output, and only then returns", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(w, "typed", snippet("plugins/typed.ts"));
    expect((await chatParams(w, request("gpt-4o"))).options.temperature).toBe(0.1);

    const card = afterPayload("echo", {}, toolResult("card 4111 1111 1111 1111"), CALL);
    const redacted = await runHook<JsonObject>(w, "tool.execute.after", card);
    expect(redacted.value).toEqual(
      afterPayload("echo", {}, toolResult("card [redacted] [redacted] [redacted] [redacted]"), CALL),
    );
    const plain = afterPayload("echo", {}, toolResult("PIN 123"), CALL);
    const untouched = await runHook<JsonObject>(w, "tool.execute.after", plain);
    expect(untouched.value).toEqual(plain);
    expect(untouched.records.map((r) => r.outcome)).toEqual(["passed"]);
  });
});

describe("model-output-limits.json", () => {
  it("clamps maxTokens by model, family and default as the page says, once a chat.params plugin is active", async () => {
    const w = await pluginWorkspace();
    await setConfig(w, snippetObject("plugins/model-output-limits.json"));
    const asked = { maxTokens: 20_000 };
    // No chat.params plugin: forwarded untouched, nothing clamped.
    expect((await chatParams(w, request("gpt-4o", asked))).options.maxTokens).toBe(20_000);

    await deployPlugin(w, "typed", snippet("plugins/typed.ts"));
    const sent = async (model: string) => (await chatParams(w, request(model, asked))).options.maxTokens;
    expect(await sent("gpt-4o-2024-08-06")).toBe(4096);
    expect(await sent("my-finetune")).toBe(8192);
    expect(await sent("an-unknown-model")).toBe(16_384);
  });
});

describe("word-count.ts through the gateway", () => {
  it("lists word_count beside the upstream's tools, and a call runs execute", async () => {
    const g = await setup();
    await deployFileSource(
      { ws: g.ws, key: g.writeKey },
      "plugins/word-count.ts",
      snippet("plugins/word-count.ts"),
      {
        hook: "tool",
        input: {},
      },
    );
    const client = await connect(g);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["word_count", "echo", "search_release_notes"]));
    const result = await callTool(client, "word_count", { text: "one two  three " });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "3 words" }]);
  });
});
