// Plugins' `tool.execute.before` / `tool.execute.after` around a tool call: around the
// upstream dispatch of an indexed tool and around a plugin tool's `execute`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, type Json, type JsonObject } from "../../../shared/json";
import type { RunRecord } from "../../../shared/logs";
import type { PluginSet } from "../../../shared/plugins/call-plugins";
import { withHook } from "../../../shared/plugins/discovery";
import { afterPayload, beforePayload, type ExecuteContext } from "./execute-payloads";
import { runPluginHook, type PluginEnv } from "../../../shared/plugins/run";

/** Who a plugin hook run on the tool path is for; the ExecuteContext members are the payloads' `ctx`. */
export interface PluginCallScope extends ExecuteContext {
  env: PluginEnv;
  /** The tool's public name: `toolID` of the hooks' payloads. */
  toolName: string;
  toolUid?: string;
}

/** One of the two hooks across the plugins that define it, for the scope's tool. */
const runToolHook = (
  scope: PluginCallScope,
  hook: "tool.execute.before" | "tool.execute.after",
  value: Json,
  plugins: PluginSet["plugins"],
  config: PluginSet["config"],
) =>
  runPluginHook(scope.env, {
    workspaceUid: scope.workspaceUid,
    requestId: scope.requestId,
    hook,
    value,
    plugins,
    toolName: scope.toolName,
    ...(scope.toolUid === undefined ? {} : { toolUid: scope.toolUid }),
    ...(config === undefined ? {} : { config }),
  });

/**
 * Plugins' `tool.execute.before` on `{ toolID, args, ctx }`: the arguments the
 * last plugin left (`undefined` when a plugin dropped them: the caller refuses
 * that). Only `args` is read back; a `ctx` a plugin changes reaches later
 * plugins only.
 */
export async function pluginsBefore(
  scope: PluginCallScope,
  { plugins, config }: PluginSet,
  args: JsonObject,
): Promise<{ args: Json | undefined; changed: boolean; records: RunRecord[] }> {
  const running = withHook(plugins, "tool.execute.before");
  if (running.length === 0) return { args, changed: false, records: [] };
  const value = beforePayload(scope.toolName, args, scope);
  const ran = await runToolHook(scope, "tool.execute.before", value, running, config);
  const out = ran.value;
  const next = isJsonObject(out) ? out.args : undefined;
  return { args: next, changed: ran.value !== value, records: ran.records };
}

/** The text the model sees: the result's text blocks, joined. */
export function resultText(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("\n");
}

/** `result.output` replaces the text content: one text block where the first one was. */
export function replaceText(result: CallToolResult, output: string): CallToolResult {
  const content: CallToolResult["content"] = [];
  let placed = false;
  for (const block of result.content) {
    if (block.type !== "text") content.push(block);
    else if (!placed) {
      content.push({ type: "text", text: output });
      placed = true;
    }
  }
  if (!placed) content.unshift({ type: "text", text: output });
  return { ...result, content };
}

/**
 * Plugins' `tool.execute.after` on `{ toolID, args, result: { title, output,
 * metadata: { structuredContent, isError } }, ctx }`; runs on upstream tool
 * errors too. Its `output` (when a string that differs) replaces the text content.
 */
export async function pluginsAfter(
  scope: PluginCallScope,
  { plugins, config }: PluginSet,
  args: Json,
  result: CallToolResult,
): Promise<{ result: CallToolResult; records: RunRecord[] }> {
  const running = withHook(plugins, "tool.execute.after");
  if (running.length === 0) return { result, records: [] };
  const output = resultText(result);
  const metadata: JsonObject = { isError: result.isError === true };
  const structured = result.structuredContent as Json | undefined;
  if (structured !== undefined && isJsonObject(structured)) metadata.structuredContent = structured;
  const value = afterPayload(scope.toolName, args, { title: scope.toolName, output, metadata }, scope);
  const ran = await runToolHook(scope, "tool.execute.after", value, running, config);
  const out = ran.value;
  const next = isJsonObject(out) && isJsonObject(out.result) ? out.result.output : undefined;
  if (typeof next !== "string" || next === output) return { result, records: ran.records };
  return { result: replaceText(result, next), records: ran.records };
}
