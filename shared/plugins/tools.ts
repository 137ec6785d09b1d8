// Plugins on the MCP tool-call path (seed 003; DESIGN §7 "Tool results",
// "Order with plugins", "Files and plugins"):
//   - `tool.execute.before` / `tool.execute.after` around an upstream call;
//   - the `tool` hook: definitions read once per revision at deploy time
//     (`readPluginTools`) and a plugin tool's `execute` run in a fresh sandbox
//     (`runPluginTool`).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readWorkspaceConfig } from "../config";
import { isJsonObject, type Json, type JsonObject } from "../json";
import { getRevision, revisionTools, type PluginToolDef } from "../deploy/revisions";
import { fileTarget } from "../lifecycle/target";
import { validatePublicContract } from "../hooks";
import type { RunRecord } from "../logs";
import { NAMESPACE_EXTENSION } from "../llm/host-calls";
import { runAsyncModuleExport, type PreludeExtension } from "../sandbox";
import { activePlugins, type DeployedPlugin } from "./discovery";
import { isProtectedToolId } from "./protected";
import { runPluginHook, type PluginEnv } from "./run";

export type { DeployedPlugin, PluginToolDef };

/** Who a plugin hook run on the tool path is for. */
export interface PluginCallScope {
  env: PluginEnv;
  workspaceUid: string;
  requestId: string;
  /** The tool's public name: `toolID` of the hooks' payloads. */
  toolName: string;
  toolUid?: string;
}

/**
 * How long an isolate keeps a workspace's active plugin list. Plugin deploys,
 * rollbacks and resets bump the catalog version (deployments.ts), so the list
 * is also dropped the moment the call path sees a newer version; the age bound
 * covers the config's `plugins` order, which does not bump it.
 */
export const PLUGIN_CACHE_MS = 5_000;
const PLUGIN_CACHE_ENTRIES = 1024;
const pluginCache = new Map<string, { version: number; loadedAt: number; plugins: DeployedPlugin[] }>();

/** For tests: forget every cached plugin list. */
export function clearPluginCache(): void {
  pluginCache.clear();
}

/** Whether a target is a plugin file (its deploys change what runs on the tool path). */
export const isPluginTarget = (target: string): boolean => target.startsWith("file:plugins/");

/**
 * The workspace's active plugins, in order, for a call at catalog `version`:
 * the isolate's list when it is at that version and young, else read (one
 * WorkspaceObject round trip and the config). Never throws: a failed read logs
 * and runs the call without plugins (plugins fail open).
 */
export async function callPlugins(
  env: Pick<Env, "DB" | "CODE" | "WORKSPACE">,
  workspaceUid: string,
  version: number,
): Promise<DeployedPlugin[]> {
  const hit = pluginCache.get(workspaceUid);
  if (hit !== undefined && hit.version === version && Date.now() - hit.loadedAt < PLUGIN_CACHE_MS)
    return hit.plugins;
  try {
    const config = await readWorkspaceConfig(env.DB, workspaceUid);
    const plugins = await activePlugins(env, workspaceUid, config);
    pluginCache.delete(workspaceUid);
    pluginCache.set(workspaceUid, { version, loadedAt: Date.now(), plugins });
    if (pluginCache.size > PLUGIN_CACHE_ENTRIES) {
      const oldest = pluginCache.keys().next();
      if (!oldest.done) pluginCache.delete(oldest.value);
    }
    return plugins;
  } catch (error) {
    console.error("plugins: could not read the active plugins; the call runs without them", {
      workspaceUid,
      error: String(error),
    });
    return [];
  }
}

const withHook = (plugins: readonly DeployedPlugin[], hook: string): DeployedPlugin[] =>
  plugins.filter((p) => p.hooks.includes(hook));

/**
 * Plugins' `tool.execute.before` on `{ toolID, args }`: the arguments the last
 * plugin left (`undefined` when a plugin dropped them: the caller refuses that).
 */
export async function pluginsBefore(
  scope: PluginCallScope,
  plugins: readonly DeployedPlugin[],
  args: JsonObject,
): Promise<{ args: Json | undefined; changed: boolean; records: RunRecord[] }> {
  const running = withHook(plugins, "tool.execute.before");
  if (running.length === 0) return { args, changed: false, records: [] };
  const value: JsonObject = { toolID: scope.toolName, args };
  const ran = await runPluginHook(scope.env, {
    workspaceUid: scope.workspaceUid,
    requestId: scope.requestId,
    hook: "tool.execute.before",
    value,
    plugins: running,
    toolName: scope.toolName,
    ...(scope.toolUid === undefined ? {} : { toolUid: scope.toolUid }),
  });
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
 * metadata: { structuredContent, isError } } }`; runs on upstream tool errors too.
 * Its `output` (when a string that differs) replaces the text content.
 */
export async function pluginsAfter(
  scope: PluginCallScope,
  plugins: readonly DeployedPlugin[],
  args: Json,
  result: CallToolResult,
): Promise<{ result: CallToolResult; records: RunRecord[] }> {
  const running = withHook(plugins, "tool.execute.after");
  if (running.length === 0) return { result, records: [] };
  const output = resultText(result);
  const metadata: JsonObject = { isError: result.isError === true };
  const structured = result.structuredContent as Json | undefined;
  if (structured !== undefined && isJsonObject(structured)) metadata.structuredContent = structured;
  const value: JsonObject = {
    toolID: scope.toolName,
    args,
    result: { title: scope.toolName, output, metadata },
  };
  const ran = await runPluginHook(scope.env, {
    workspaceUid: scope.workspaceUid,
    requestId: scope.requestId,
    hook: "tool.execute.after",
    value,
    plugins: running,
    toolName: scope.toolName,
    ...(scope.toolUid === undefined ? {} : { toolUid: scope.toolUid }),
  });
  const out = ran.value;
  const next = isJsonObject(out) && isJsonObject(out.result) ? out.result.output : undefined;
  if (typeof next !== "string" || next === output) return { result, records: ran.records };
  return { result: replaceText(result, next), records: ran.records };
}

// ---------------------------------------------------------------------------
// The `tool` hook in the sandbox. `execute` is a function and cannot cross the
// boundary, so both extensions wrap the call of `default.tool({})`:
//   - pluginToolDefs maps what `tool()` returned to JSON records
//     `{ id, description, parameters }` (null when it is not an array);
//   - pluginToolExecute takes `execute` of the definition matched by id from
//     that sandbox's own single call of `tool()` and runs it with the args.
// Both override the `json` builder (runAsyncModuleExport's): the input is kept
// by the extension and `tool` is called with `{}` (seed 003).

/** Largest JSON of one tool's parameters read from the sandbox, in characters. */
export const PLUGIN_TOOL_PARAMETERS_CHARS = 64 * 1024;

const TOOL_DEFS_JS = String.raw`
const pluginBaseInvoke = api.invoke;
const readDefs = (list) => {
  if (!isArray(list)) return null;
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const record = objCreate(null);
    if (!isObjectLike(item)) {
      record.problem = "is not an object";
    } else {
      const id = dataProperty(item, "id");
      const description = dataProperty(item, "description");
      record.id = typeof id === "string" ? id : null;
      record.description = typeof description === "string" ? description : null;
      record.parameters = toJsonText(dataProperty(item, "parameters"), "parameters", ${PLUGIN_TOOL_PARAMETERS_CHARS});
      record.executable = typeof dataProperty(item, "execute") === "function";
    }
    defineProp(out, out.length, descriptor(record, true, true, true));
  }
  return out;
};
builders.json = () => [objCreate(ObjectProto)];
api.invoke = (builderName, inputText) => {
  const returned = pluginBaseInvoke(builderName, inputText);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [readDefs]);
};
`;

const TOOL_EXECUTE_JS = String.raw`
const pluginBaseInvoke = api.invoke;
let request;
const runExecute = (list) => {
  if (!isArray(list)) throw new TypeErr("the plugin's tool() did not return a list of tools");
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObjectLike(item) || dataProperty(item, "id") !== request.id) continue;
    const execute = dataProperty(item, "execute");
    if (typeof execute !== "function") throw new TypeErr("the tool " + request.id + " has no execute function");
    const source = request.context;
    const context = objCreate(ObjectProto);
    const fields = ["toolID", "requestId", "workspaceUid", "calledAt"];
    for (let j = 0; j < fields.length; j++) {
      defineProp(context, fields[j], descriptor(source[fields[j]], true, false, false));
    }
    objFreeze(context);
    return apply(execute, item, [request.args, context]);
  }
  throw new TypeErr("the plugin's tool() no longer defines " + request.id);
};
builders.json = (input) => {
  request = input[0];
  return [objCreate(ObjectProto)];
};
api.invoke = (builderName, inputText) => {
  const returned = pluginBaseInvoke(builderName, inputText);
  return apply(promiseThen, new PromiseCtor((resolve) => resolve(returned)), [runExecute]);
};
`;

export const pluginToolDefsExtension: PreludeExtension = { name: "pluginToolDefs", source: TOOL_DEFS_JS };
export const pluginToolExecuteExtension: PreludeExtension = {
  name: "pluginToolExecute",
  source: TOOL_EXECUTE_JS,
};

/** Tool ids are MCP tool names: short, no spaces or slashes. */
const TOOL_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Why one definition was refused (logged; the plugin still deploys). */
export interface ToolDefProblem {
  index: number;
  id: string | null;
  code: "invalid_tool" | "protected_tool_id" | "regex_not_allowed";
  message: string;
}

/** What `tool({})` gave at deploy time: the kept definitions, the refused ones, or a throw. */
export interface PluginToolsRead {
  tools: PluginToolDef[];
  problems: ToolDefProblem[];
  /** `tool()` threw (or failed in the sandbox): zero tools, the plugin deploys for its other hooks. */
  threw: { code: string; message: string } | null;
  /** `tool()` returned something that is not an array: ignored (zero tools). */
  ignored: boolean;
  durationMs: number;
  fuelUsed: number;
}

/** Whether `id` may not be registered by a plugin of a workspace with these indexed tool names. */
export function refusedToolId(id: string, indexed: ReadonlySet<string>): boolean {
  return isProtectedToolId(id) || indexed.has(id);
}

function checkDefinition(
  raw: Json,
  index: number,
  indexed: ReadonlySet<string>,
): { ok: true; tool: PluginToolDef } | { ok: false; problem: ToolDefProblem } {
  const bad = (code: ToolDefProblem["code"], id: string | null, message: string) => ({
    ok: false as const,
    problem: { index, id, code, message },
  });
  if (!isJsonObject(raw) || typeof raw.problem === "string")
    return bad("invalid_tool", null, `tool ${index} is not an object`);
  const id = typeof raw.id === "string" ? raw.id : null;
  if (id === null || !TOOL_ID.test(id))
    return bad("invalid_tool", id, `tool ${index} needs an id of 1–64 letters, digits, "_", "." or "-"`);
  if (refusedToolId(id, indexed))
    return bad(
      "protected_tool_id",
      id,
      isProtectedToolId(id)
        ? `${id} is a protected tool id; a plugin cannot register or replace it`
        : `${id} is an indexed upstream tool of the workspace; a plugin cannot replace it`,
    );
  if (raw.executable !== true) return bad("invalid_tool", id, `${id} has no execute function`);
  const text = typeof raw.parameters === "string" ? raw.parameters : "E";
  if (!text.startsWith("J"))
    return bad("invalid_tool", id, `${id}'s parameters are not a JSON Schema object`);
  const parameters = JSON.parse(text.slice(1)) as Json;
  if (!isJsonObject(parameters))
    return bad("invalid_tool", id, `${id}'s parameters are not a JSON Schema object`);
  // The same rules as a public contract's inputSchema: structure, then no regex keywords.
  const checked = validatePublicContract({ inputSchema: parameters });
  if (!checked.ok) {
    const first = checked.error[0];
    return bad(
      first?.code === "regex_not_allowed" ? "regex_not_allowed" : "invalid_tool",
      id,
      `${id}'s parameters: ${first?.message ?? "not a valid JSON Schema"}`,
    );
  }
  return {
    ok: true,
    tool: { id, description: typeof raw.description === "string" ? raw.description : null, parameters },
  };
}

/**
 * Calls a plugin's `tool({})` once in a fresh sandbox (deploy time) and keeps
 * the valid definitions; `indexed` are the workspace's indexed tool names
 * (protected ids, like the seed's list).
 */
export async function readPluginTools(
  code: string,
  indexed: ReadonlySet<string>,
  seed: string,
): Promise<PluginToolsRead> {
  const report = await runAsyncModuleExport({
    code,
    exportPath: ["default", "tool"],
    input: {},
    nowMs: Date.now(),
    seed,
    extensions: [NAMESPACE_EXTENSION, pluginToolDefsExtension],
  });
  const base = { durationMs: report.durationMs, fuelUsed: report.fuelUsed };
  if (!report.outcome.ok) {
    return { tools: [], problems: [], threw: report.outcome.error, ignored: false, ...base };
  }
  const value = report.outcome.value.value;
  if (!Array.isArray(value)) return { tools: [], problems: [], threw: null, ignored: true, ...base };
  const byId = new Map<string, PluginToolDef>();
  const problems: ToolDefProblem[] = [];
  value.forEach((raw, index) => {
    const checked = checkDefinition(raw, index, indexed);
    if (!checked.ok) problems.push(checked.problem);
    else {
      // A later definition with the same id replaces an earlier one (merged by id).
      byId.delete(checked.tool.id);
      byId.set(checked.tool.id, checked.tool);
    }
  });
  return { tools: [...byId.values()], problems, threw: null, ignored: false, ...base };
}

/** Records of a deploy-time `tool()` read: kind plugin, stage "tool". */
export function toolReadRecords(
  read: PluginToolsRead,
  at: { workspaceUid: string; target: string; plugin: string; requestId: string; revisionId: string | null },
): RunRecord[] {
  const record = (outcome: RunRecord["outcome"], code: string | null, message: string): RunRecord => ({
    workspaceUid: at.workspaceUid,
    kind: "plugin",
    target: at.target,
    toolUid: null,
    toolName: null,
    stage: "tool",
    channel: "active",
    outcome,
    code,
    revisionId: at.revisionId,
    requestId: at.requestId,
    durationMs: read.durationMs,
    fuelUsed: read.fuelUsed,
    shadowDiffered: null,
    plugin: at.plugin,
    at: new Date().toISOString(),
    details: { message },
  });
  const records: RunRecord[] = [];
  if (read.threw !== null) {
    const abandoned = read.threw.code === "hook_timeout";
    records.push(
      record(
        abandoned ? "abandoned" : "threw",
        read.threw.code,
        abandoned
          ? `plugin: tool hook exceeded its budget at init; dropping its contribution (${read.threw.message})`
          : `plugin: tool hook threw at init (${read.threw.message})`,
      ),
    );
  } else if (read.ignored) {
    records.push(
      record("passed", "tool_result_ignored", "plugin: tool() did not return an array; zero tools"),
    );
  }
  for (const problem of read.problems) {
    records.push(record("refused", problem.code, `plugin: tool refused: ${problem.message}`));
  }
  return records;
}

/** A plugin tool's run: `{ title, output, metadata? }` as a CallToolResult, or why it failed. */
export async function runPluginTool(
  plugin: DeployedPlugin,
  id: string,
  args: JsonObject,
  context: { requestId: string; workspaceUid: string; calledAt: string },
): Promise<
  | { ok: true; result: CallToolResult }
  | { ok: false; message: string; durationMs: number; fuelUsed: number; code: string }
> {
  const report = await runAsyncModuleExport({
    code: plugin.code,
    exportPath: ["default", "tool"],
    input: { id, args, context: { toolID: id, ...context } },
    nowMs: Date.now(),
    seed: context.requestId,
    extensions: [NAMESPACE_EXTENSION, pluginToolExecuteExtension],
  });
  const meta = { durationMs: report.durationMs, fuelUsed: report.fuelUsed };
  if (!report.outcome.ok)
    return { ok: false, code: report.outcome.error.code, message: report.outcome.error.message, ...meta };
  const value = report.outcome.value.value;
  if (!isJsonObject(value) || typeof value.output !== "string") {
    return {
      ok: false,
      code: "hook_invalid_return",
      message: `${id}'s execute must return { title, output, metadata? } with a string output`,
      ...meta,
    };
  }
  const result: CallToolResult = { content: [{ type: "text", text: value.output }] };
  if (isJsonObject(value.metadata)) result.structuredContent = value.metadata;
  return { ok: true, result };
}

// ---------------------------------------------------------------------------
// Plugin tools as the MCP path offers them.

/** Cached definitions per plugin revision (immutable), bounded. */
const toolDefsCache = new Map<string, PluginToolDef[]>();
const TOOL_DEFS_CACHE_ENTRIES = 4096;

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
  if (toolDefsCache.size > TOOL_DEFS_CACHE_ENTRIES) {
    const oldest = toolDefsCache.keys().next();
    if (!oldest.done) toolDefsCache.delete(oldest.value);
  }
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
