// Code discovery: `search_tools` and `describe_tools` over exactly what Direct
// Mode's tools/list shows the same key (discoverTools: the tools its access
// profile allows, each with the active revision's public contract where it has
// one, plugin tools included), so discovery can never show more.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { discoverTools } from "../discovery/tools-list";
import { RpcError } from "../wire/rpc-error";
import type { Caller, GatewayEnv } from "../env";
import { codeModeDeclarations } from "./declarations";
import { invalidArguments, structured } from "./results";
import { DESCRIBE_NAMES_MAX, SEARCH_RESULTS_MAX } from "./tools";

export interface DiscoveryScope {
  env: GatewayEnv;
  workspaceUid: string;
  caller: Caller;
}

/** Characters of a description `search_tools` shows: its first line, cut. */
const ONE_LINE_CHARS = 200;

async function allowedTools(scope: DiscoveryScope): Promise<Tool[]> {
  const answer = await discoverTools(scope.env, scope.workspaceUid, scope.caller);
  if (answer.kind === "revoked")
    throw new RpcError(ErrorCode.InvalidRequest, "The API key has been revoked.");
  return answer.tools;
}

function oneLine(description: string | undefined): string {
  const first = (description ?? "").trim().split("\n")[0]?.trim() ?? "";
  return first.length > ONE_LINE_CHARS ? `${first.slice(0, ONE_LINE_CHARS - 1)}…` : first;
}

/** How well a tool matches the query's words: a word in the name counts double. */
function score(tool: Tool, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const description = (tool.description ?? "").toLowerCase();
  let total = 0;
  for (const word of words) {
    if (name.includes(word)) total += 2;
    else if (description.includes(word)) total += 1;
  }
  return total;
}

export async function searchTools(scope: DiscoveryScope, args: JsonObject): Promise<CallToolResult> {
  const { query, limit } = args;
  if (typeof query !== "string") return invalidArguments("search_tools takes { query: string, limit? }.");
  if (
    limit !== undefined &&
    (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_RESULTS_MAX)
  ) {
    return invalidArguments(`search_tools: limit must be an integer from 1 to ${SEARCH_RESULTS_MAX}.`);
  }
  // Words are split on anything that is not part of a name, so "release-notes" finds "release_notes".
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  const ranked = (await allowedTools(scope))
    .map((tool) => ({ tool, score: score(tool, words) }))
    .filter((hit) => words.length === 0 || hit.score > 0)
    .toSorted((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, limit ?? SEARCH_RESULTS_MAX);
  const tools = ranked.map(({ tool }) => ({ name: tool.name, description: oneLine(tool.description) }));
  const text =
    tools.length === 0
      ? "No tool matches."
      : tools
          .map((tool) => (tool.description === "" ? tool.name : `${tool.name}: ${tool.description}`))
          .join("\n");
  return structured({ tools }, text);
}

export async function describeTools(scope: DiscoveryScope, args: JsonObject): Promise<CallToolResult> {
  const { names } = args;
  if (
    !Array.isArray(names) ||
    names.length === 0 ||
    names.length > DESCRIBE_NAMES_MAX ||
    !names.every((name) => typeof name === "string")
  ) {
    return invalidArguments(`describe_tools takes { names: string[] } (1 to ${DESCRIBE_NAMES_MAX} names).`);
  }
  const wanted = [...new Set(names)];
  const byName = new Map((await allowedTools(scope)).map((tool) => [tool.name, tool]));
  const found = wanted.flatMap((name) => {
    const tool = byName.get(name);
    return tool === undefined ? [] : [tool];
  });
  const missing = wanted.filter((name) => !byName.has(name));
  const declarations = codeModeDeclarations(
    found.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema,
      ...(isJsonObject(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
    })),
  );
  const note =
    missing.length === 0
      ? ""
      : `\n\n// No tool you may call is named: ${missing.map((name) => JSON.stringify(name)).join(", ")}`;
  return structured({ declarations, missing }, `${declarations}${note}`);
}
