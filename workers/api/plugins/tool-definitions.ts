// The `tool` hook at deploy time: a plugin's `tool({})` is called once per revision in a fresh
// sandbox, and the valid definitions are kept with the revision; a refused
// definition, a throw or a non-array is logged and the plugin still deploys.
import { isJsonObject, type Json } from "../../../shared/json";
import type { PluginToolDef } from "../../../shared/deploy/revisions";
import { validatePublicContract } from "../contract";
import type { RunRecord } from "../../../shared/logs";
import { NAMESPACE_EXTENSION } from "../../../shared/llm/hook-extensions";
import { err, ok, type Result } from "../../../shared/result";
import { runModuleExport } from "../../../shared/sandbox";
import { isProtectedToolId, refusedToolId } from "../../../shared/plugins/protected";
import { PLUGIN_TOOL_PARAMETERS_CHARS, pluginToolDefsExtension } from "../../../shared/plugins/tool-sandbox";

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

/**
 * A definition's parameters as the sandbox hands them over ("J" + JSON text,
 * "E" + what is wrong, "L" when too long), decoded; the error says why not.
 */
function decodeParameters(text: Json | undefined): Result<Json, string> {
  if (typeof text !== "string") return err("parameters could not be read");
  if (text === "L")
    return err(`parameters is longer than ${PLUGIN_TOOL_PARAMETERS_CHARS} characters of JSON`);
  if (!text.startsWith("J"))
    return err(text.startsWith("E") ? text.slice(1) : "parameters could not be read");
  return ok(JSON.parse(text.slice(1)) as Json);
}

/**
 * What `tool({})` returned, as the test console answers it: each definition
 * with its parameters decoded to the JSON the plugin wrote (null, and the
 * reason in `problem`, when they are not JSON), never the sandbox's encoding.
 */
export function decodedToolDefinitions(value: Json | undefined): Json | undefined {
  if (!Array.isArray(value)) return value;
  return value.map((raw): Json => {
    if (!isJsonObject(raw) || !("parameters" in raw)) return raw;
    const parameters = decodeParameters(raw.parameters);
    return parameters.ok
      ? { ...raw, parameters: parameters.value }
      : { ...raw, parameters: null, problem: parameters.error };
  });
}

function checkDefinition(
  raw: Json,
  index: number,
  indexed: ReadonlySet<string>,
): Result<PluginToolDef, ToolDefProblem> {
  const bad = (code: ToolDefProblem["code"], id: string | null, message: string) =>
    err({ index, id, code, message });
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
  const decoded = decodeParameters(raw.parameters);
  const parameters = decoded.ok ? decoded.value : null;
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
  return ok({ id, description: typeof raw.description === "string" ? raw.description : null, parameters });
}

/**
 * Calls a plugin's `tool({})` once in a fresh sandbox (deploy time) and keeps
 * the valid definitions; `indexed` are the workspace's indexed tool names
 * (protected ids, like the documented list).
 */
export async function readPluginTools(
  code: string,
  indexed: ReadonlySet<string>,
  seed: string,
): Promise<PluginToolsRead> {
  const report = await runModuleExport({
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
    if (!checked.ok) problems.push(checked.error);
    else {
      // A later definition with the same id replaces an earlier one (merged by id).
      byId.delete(checked.value.id);
      byId.set(checked.value.id, checked.value);
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
