// Plugin tools at call time:
// the tools the active plugins offer (definitions cached with each plugin
// revision at deploy, tool-definitions.ts), and a plugin tool's `execute` run
// in a fresh sandbox that takes it from its own call of `tool()`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { boundedCache } from "../../../shared/cache";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { getRevision, revisionTools, type PluginToolDef } from "../../../shared/deploy/revisions";
import { KNOBS } from "../../../shared/knobs";
import { fileTarget } from "../../../shared/lifecycle/target";
import { LIMITS } from "../../../shared/limits";
import { FUEL_PER_MS } from "../../../shared/llm/host-calls";
import { NAMESPACE_EXTENSION } from "../../../shared/llm/hook-extensions";
import { runModuleExport } from "../../../shared/sandbox";
import { withHook, type DeployedPlugin } from "../../../shared/plugins/discovery";
import { refusedToolId } from "../../../shared/plugins/protected";
import { pluginToolExecuteExtension } from "../../../shared/plugins/tool-sandbox";
import { err, ok, type Result } from "../../../shared/result";

/** A plugin tool's run: `{ title, output, metadata? }` as a CallToolResult, or why it failed. */
export async function runPluginTool(
  plugin: DeployedPlugin,
  id: string,
  args: JsonObject,
  context: { requestId: string; workspaceUid: string; calledAt: string },
): Promise<{
  outcome: Result<CallToolResult, { code: string; message: string }>;
  durationMs: number;
  fuelUsed: number;
}> {
  // The plugin bound as fuel, for its top level and for
  // execute alike; execute gets no host calls, so nothing of it waits on a clock.
  const fuel = LIMITS.pluginHookTimeoutMs * FUEL_PER_MS;
  const report = await runModuleExport({
    code: plugin.code,
    exportPath: ["default", "tool"],
    input: { id, args, context: { toolID: id, ...context } },
    nowMs: Date.now(),
    seed: context.requestId,
    extensions: [NAMESPACE_EXTENSION, pluginToolExecuteExtension],
    fuel,
    moduleFuel: fuel,
  });
  const meta = { durationMs: report.durationMs, fuelUsed: report.fuelUsed };
  if (!report.outcome.ok) {
    const { code, message } = report.outcome.error;
    return { outcome: err({ code, message }), ...meta };
  }
  const value = report.outcome.value.value;
  if (!isJsonObject(value) || typeof value.output !== "string") {
    return {
      outcome: err({
        code: "hook_invalid_return",
        message: `${id}'s execute must return { title, output, metadata? } with a string output`,
      }),
      ...meta,
    };
  }
  const result: CallToolResult = { content: [{ type: "text", text: value.output }] };
  if (isJsonObject(value.metadata)) result.structuredContent = value.metadata;
  return { outcome: ok(result), ...meta };
}

// Plugin tools as the MCP path offers them (tools/list and the tools/call lookup).

/** Cached definitions per plugin revision (immutable), bounded. */
const toolDefsCache = boundedCache<string, PluginToolDef[]>({ entries: KNOBS.pluginToolDefsCacheEntries });

async function revisionToolDefs(
  env: Pick<Env, "DB">,
  workspaceUid: string,
  plugin: DeployedPlugin,
): Promise<PluginToolDef[]> {
  const key = `${workspaceUid}\n${plugin.revisionId}`;
  const hit = toolDefsCache.get(key);
  if (hit !== undefined) return hit;
  const row = await getRevision(env.DB, workspaceUid, fileTarget(plugin.path), plugin.revisionId);
  const defs = row ? revisionTools(row) : [];
  toolDefsCache.set(key, defs);
  return defs;
}

/** A plugin tool as offered: its definition and the plugin whose `tool()` defines it. */
export interface OfferedPluginTool {
  def: PluginToolDef;
  plugin: DeployedPlugin;
}

/**
 * The active plugins' tools merged by id in plugin order (a later plugin's
 * tool replaces an earlier one's), never a protected id or an indexed tool name.
 */
export async function offeredPluginTools(
  env: Pick<Env, "DB">,
  workspaceUid: string,
  plugins: readonly DeployedPlugin[],
  indexed: ReadonlySet<string>,
): Promise<Map<string, OfferedPluginTool>> {
  const withTools = withHook(plugins, "tool");
  const defs = await Promise.all(withTools.map((p) => revisionToolDefs(env, workspaceUid, p)));
  const merged = new Map<string, OfferedPluginTool>();
  withTools.forEach((plugin, i) => {
    for (const def of defs[i] ?? []) {
      if (refusedToolId(def.id, indexed)) continue;
      merged.delete(def.id);
      merged.set(def.id, { def, plugin });
    }
  });
  return merged;
}
