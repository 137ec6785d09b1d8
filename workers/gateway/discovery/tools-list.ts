// `tools/list` on the MCP path: every exposed tool the key's access profile
// allows, by its public name, with the active revision's publicContract where
// it has one and the accepted upstream definition otherwise; then the active
// plugins' tools, by id,
// never replacing an indexed tool or a protected id.
import { ToolSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TOOL_RISK, decideAccess } from "../../../shared/access";
import { callPlugins } from "../../../shared/plugins/call-plugins";
import { offeredPluginTools } from "../plugins/tool-execute";
import { isJsonObject } from "../../../shared/json";
import { leasedView } from "../../../shared/lease/view";
import { toolTarget } from "../../../shared/lifecycle/target";
import { isExposed, upstreamSchemas } from "../../../shared/services/catalog";
import { workspaceCatalog } from "../caches/catalog-cache";
import { revisionMeta } from "../caches/revision-cache";
import type { Caller, GatewayEnv } from "../env";

export type DiscoveryAnswer = { kind: "revoked" } | { kind: "tools"; tools: Tool[] };

export async function discoverTools(
  env: GatewayEnv,
  workspaceUid: string,
  caller: Caller,
): Promise<DiscoveryAnswer> {
  const { view } = await leasedView(env, workspaceUid);
  if (view.revoked.includes(caller.keyId)) return { kind: "revoked" };
  // Read after the view, so the copy is at least as new as the view's catalog version.
  const catalog = await workspaceCatalog(env, workspaceUid, caller.profile, { version: view.catalog });
  const listed: Tool[] = [];
  await Promise.all(
    catalog.tools.filter(isExposed).map(async (entry, index) => {
      const { tool } = entry;
      const name = tool.publicName ?? tool.upstreamName;
      const decision = decideAccess(
        { uid: tool.uid, publicName: name, risk: entry.risk },
        catalog.workspace,
        catalog.key,
        caller.profile,
      );
      if (!decision.ok) return;
      const target = toolTarget(tool.uid);
      const pointers = view.pointers[target] ?? { active: null, shadow: null };
      const meta = pointers.active
        ? await revisionMeta(env.DB, workspaceUid, target, pointers.active.revisionId)
        : null;
      const contract = meta?.publicContract ?? {};
      const upstream = upstreamSchemas(tool);
      const description = typeof contract.description === "string" ? contract.description : tool.description;
      const inputSchema = isJsonObject(contract.inputSchema) ? contract.inputSchema : upstream.inputSchema;
      const outputSchema = isJsonObject(contract.outputSchema)
        ? contract.outputSchema
        : upstream.outputSchema;
      // Checked against the protocol's Tool shape, so a listed tool never breaks a client. A public
      // contract replaces the description and schemas only: title, annotations, execution, icons and
      // `_meta` stay the upstream's.
      const parsed = ToolSchema.safeParse({
        ...tool.listing,
        name,
        ...(description === null ? {} : { description }),
        inputSchema,
        ...(outputSchema === undefined ? {} : { outputSchema }),
      });
      if (parsed.success) listed[index] = parsed.data;
      else
        console.error("tool left out of tools/list: its definition is not a valid MCP tool", {
          tool: tool.uid,
        });
    }),
  );
  const tools = listed.filter((t) => t !== undefined);
  const indexed = new Set(catalog.tools.map(({ tool }) => tool.publicName ?? tool.upstreamName));
  const { plugins } = await callPlugins(env, workspaceUid);
  const offered = await offeredPluginTools(env, workspaceUid, plugins, indexed);
  for (const { def } of offered.values()) {
    const decision = decideAccess(
      { uid: def.id, publicName: def.id, risk: DEFAULT_TOOL_RISK },
      catalog.workspace,
      catalog.key,
      caller.profile,
    );
    if (!decision.ok) continue;
    const parsed = ToolSchema.safeParse({
      name: def.id,
      ...(def.description === null ? {} : { description: def.description }),
      inputSchema: def.parameters,
    });
    if (parsed.success) tools.push(parsed.data);
  }
  return { kind: "tools", tools };
}
