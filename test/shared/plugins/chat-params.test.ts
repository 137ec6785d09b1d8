// chat.params: the params a plugin sees (unset fields present as
// undefined), clamping of maxOutputTokens to the model's real limit, options
// merged with the plugin's keys winning, and the mapping back into the request.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../../shared/config/schema";
import type { NeutralRequest } from "../../../shared/llm/request";
import {
  applyChatParams,
  chatParamsOf,
  runChatParams,
  type ChatParamsInput,
} from "../../../shared/plugins/chat-params";
import {
  DEFAULT_MODEL_OUTPUT_LIMIT,
  MODEL_OUTPUT_LIMITS,
  knownOutputLimit,
  modelOutputLimit,
} from "../../../shared/plugins/models";
import { deployPlugin, pluginWorkspace, plugins, type PluginWorkspace } from "./pipeline-harness";

/** A request for `model` (null: none named). */
const request = (
  options: NeutralRequest["options"] = {},
  model: string | null = "gpt-4o",
): NeutralRequest => ({
  ...(model === null ? {} : { model }),
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  options,
});

async function chat(w: PluginWorkspace, req: NeutralRequest, extra: Partial<ChatParamsInput> = {}) {
  return runChatParams(env, {
    workspaceUid: w.ws,
    requestId: crypto.randomUUID(),
    request: req,
    plugins: await plugins(w),
    provider: "openai",
    ...extra,
  });
}

describe("chat.params input", () => {
  it("fields the caller did not specify arrive as undefined, present on the params object", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "inspect",
      `export default {
        "chat.params": (params: Record<string, unknown>) => ({
          ...params,
          options: {
            ...(params.options as object),
            seen: ["model", "temperature", "topP", "topK", "maxOutputTokens", "options"].map((key) => [
              key,
              key in params,
              params[key] === undefined ? "undefined" : typeof params[key],
            ]),
          },
        }),
      };`,
    );
    const { request: sent, records } = await chat(w, request({ maxTokens: 256 }));
    expect(records.map((r) => [r.plugin, r.outcome, r.stage, r.kind])).toEqual([
      ["inspect", "continue", "chat.params", "plugin"],
    ]);
    expect(sent.options.providerParams?.seen).toEqual([
      ["model", true, "string"],
      ["temperature", true, "undefined"],
      ["topP", true, "undefined"],
      ["topK", true, "undefined"],
      ["maxOutputTokens", true, "number"],
      ["options", true, "object"],
    ]);
    // Nobody asked for a temperature, and the plugin did not set one: none is sent.
    expect(sent.options).not.toHaveProperty("temperature");
  });

  it("the params are derived from the neutral request", () => {
    expect(
      chatParamsOf(
        request({
          maxTokens: 100,
          temperature: 0,
          topP: 0.5,
          reasoning: { effort: "high" },
          providerParams: { top_k: 40, seed: 7 },
        }),
      ),
    ).toEqual({
      model: "gpt-4o",
      temperature: 0,
      topP: 0.5,
      topK: 40,
      maxOutputTokens: 100,
      options: { seed: 7, reasoning: { effort: "high" } },
    });
  });

  it("an observe-only plugin changes nothing", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(w, "observe", `export default { "chat.params": () => undefined };`);
    const given = request({ maxTokens: 50, temperature: 0.3 });
    const { request: sent, records } = await chat(w, given);
    expect(sent).toEqual(given);
    expect(records[0]?.outcome).toBe("passed");
  });

  it("without chat.params plugins the request is untouched and nothing is logged", async () => {
    const w = await pluginWorkspace();
    const given = request({ maxTokens: 1_000_000 });
    const outcome = await chat(w, given);
    expect(outcome.request).toBe(given);
    expect(outcome.records).toEqual([]);
  });
});

describe("maxOutputTokens is clamped afterwards", () => {
  it("raising it past the model's ceiling has no effect", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "raise",
      `export default { "chat.params": (p: any) => ({ ...p, maxOutputTokens: 1000000 }) };`,
    );
    const { request: sent } = await chat(w, request({ maxTokens: 100 }, "gpt-4o-2024-08-06"));
    expect(sent.options.maxTokens).toBe(MODEL_OUTPUT_LIMITS["gpt-4o"]);
    const unknown = await chat(w, request({ maxTokens: 100 }, "my-local-model"));
    expect(unknown.request.options.maxTokens).toBe(DEFAULT_MODEL_OUTPUT_LIMIT);
    const absent = await chat(w, request({ maxTokens: 100 }, null));
    expect(absent.request.options.maxTokens).toBe(DEFAULT_MODEL_OUTPUT_LIMIT);
  });

  it("the workspace config's modelOutputLimits set the ceiling the pipeline clamps to", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "raise",
      `export default { "chat.params": (p: any) => ({ ...p, maxOutputTokens: 1000000 }) };`,
    );
    const config = {
      ...DEFAULT_CONFIG,
      modelOutputLimits: { default: 777, models: { "gpt-4o": 4096 } },
    };
    const known = await chat(w, request({ maxTokens: 100 }, "gpt-4o"), { config });
    expect(known.request.options.maxTokens).toBe(4096);
    const unknown = await chat(w, request({ maxTokens: 100 }, "my-local-model"), { config });
    expect(unknown.request.options.maxTokens).toBe(777);
  });

  it("lowering it works", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "lower",
      `export default { "chat.params": (p: any) => ({ ...p, maxOutputTokens: 64, temperature: 0.1 }) };`,
    );
    const { request: sent } = await chat(w, request({ maxTokens: 4096 }, "claude-sonnet-4-20250514"));
    expect(sent.options).toEqual({ maxTokens: 64, temperature: 0.1 });
  });

  it("the model table matches families by their longest prefix", () => {
    expect(knownOutputLimit("gpt-4o-mini-2024-07-18")).toBe(MODEL_OUTPUT_LIMITS["gpt-4o-mini"]);
    expect(knownOutputLimit("claude-opus-4-1-20250805")).toBe(MODEL_OUTPUT_LIMITS["claude-opus-4-1"]);
    expect(knownOutputLimit("gpt-4")).toBeNull();
    expect(knownOutputLimit("toString")).toBeNull();
    expect(modelOutputLimit(undefined, { default: 1234 })).toBe(1234);
  });

  it("the workspace's modelOutputLimits win over the table and set the default", () => {
    const limits = { default: 2000, models: { "gpt-4o": 1000, "house-model": 500 } };
    expect(modelOutputLimit("gpt-4o-2024-08-06", limits)).toBe(1000);
    expect(modelOutputLimit("house-model", limits)).toBe(500);
    expect(modelOutputLimit("claude-opus-4", limits)).toBe(MODEL_OUTPUT_LIMITS["claude-opus-4"]);
    expect(modelOutputLimit("unknown-model", limits)).toBe(2000);
    expect(modelOutputLimit(undefined, {})).toBe(DEFAULT_MODEL_OUTPUT_LIMIT);
  });
});

describe("options merge over the product's provider options", () => {
  it("the plugin's keys win; the others (reasoning included) stay", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "opts",
      `export default {
        "chat.params": (p: any) => ({ ...p, options: { user: "plugin", store: false } }),
      };`,
    );
    const { request: sent } = await chat(
      w,
      request({ reasoning: { effort: "high" }, providerParams: { user: "caller", seed: 7 } }),
    );
    expect(sent.options).toEqual({
      reasoning: { effort: "high" },
      providerParams: { user: "plugin", seed: 7, store: false },
    });
  });

  it("a plugin can override the reasoning variant too (the documented warning)", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "reason",
      `export default {
        "chat.params": (p: any) => ({ ...p, options: { ...p.options, reasoning: { effort: "minimal" } } }),
      };`,
    );
    const { request: sent } = await chat(w, request({ reasoning: { effort: "high" } }));
    expect(sent.options.reasoning).toEqual({ effort: "minimal" });
  });

  it("topK maps to top_k for Anthropic and is not sent to OpenAI", () => {
    const given = request({ maxTokens: 10 }, "claude-sonnet-4");
    const params = { ...chatParamsOf(given), topK: 5 };
    expect(applyChatParams(given, params, { provider: "anthropic" }).options.providerParams).toEqual({
      top_k: 5,
    });
    expect(applyChatParams(given, params, { provider: "openai" }).options).not.toHaveProperty(
      "providerParams",
    );
  });
});

describe("failing chat.params plugins fail open", () => {
  it("invalid params are dropped like a throw; a fragment drops the rest of the params", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-bad",
      `export default { "chat.params": (p: any) => (p.model ? { ...p, temperature: -1 } : undefined) };`,
    );
    await deployPlugin(w, "b-fragment", `export default { "chat.params": () => ({ temperature: 0.9 }) };`);
    const { request: sent, records } = await chat(
      w,
      request({ maxTokens: 300, topP: 0.5, providerParams: { seed: 1 } }),
    );
    expect(records.map((r) => [r.plugin, r.outcome])).toEqual([
      ["a-bad", "threw"],
      ["b-fragment", "continue"],
    ]);
    expect(records[0]?.details?.error).toContain("plugin: hook threw");
    expect(records[0]?.details?.error).toContain("temperature");
    // maxOutputTokens and topP were dropped by the fragment; options merge back over the product's.
    expect(sent.options).toEqual({ temperature: 0.9, providerParams: { seed: 1 } });
  });
});
