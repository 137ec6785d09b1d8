// `tools/call` of a tool a plugin defines rather than an indexed upstream tool.
// tool-call.ts tries it when
// the name is no indexed tool; it has its own short path (no adapter
// revision), and refuses like the upstream path does. Risk approvals are in
// plugin-tool-approval.ts.
import { DEFAULT_TOOL_RISK, decideAccess } from "../access";
import { consumeApproval } from "../approvals";
import { getValidator } from "../hooks/validator";
import { isJsonObject, type JsonObject } from "../json";
import { fileTarget } from "../lifecycle/target";
import type { RunRecord } from "../logs";
import { callPlugins } from "../plugins/call-plugins";
import { pluginsAfter, pluginsBefore, type PluginCallScope } from "../plugins/execute-hooks";
import { offeredPluginTools, runPluginTool } from "../plugins/tool-execute";
import {
  clientOrigin,
  result,
  STALE_CATALOG,
  type Answer,
  type GatewayEnv,
  type ToolCallAnswer,
  type ToolCallRequest,
} from "./call-state";
import type { WorkspaceCatalog } from "./catalog-cache";
import { approvedPluginToolCall, requestPluginToolApproval } from "./plugin-tool-approval";
import { deferRecords } from "./records";
import { refusal, type RefusalMeta } from "./results";
import { failureMeta } from "./stages";

/**
 * `tools/call` of a plugin tool, or null when `req.name` is no plugin tool: access by id, the
 * arguments against its `parameters`, plugins' tool.execute.before (the result
 * checked against `parameters` again), `execute` in a fresh sandbox that took
 * it from its own call of `tool()`, then tool.execute.after. A failing
 * `execute` is a tool error (`plugin_tool_failed`).
 */
export async function handlePluginToolCall(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
): Promise<Answer | null> {
  const set = await callPlugins(env, req.workspaceUid, catalog.version);
  const { plugins } = set;
  if (!plugins.some((p) => p.hooks.includes("tool"))) return null;
  const indexed = new Set(catalog.tools.map(({ tool }) => tool.publicName ?? tool.upstreamName));
  const offered = (await offeredPluginTools(env, req.workspaceUid, plugins, indexed)).get(req.name);
  if (offered === undefined) return null;
  const { def, plugin } = offered;
  const target = fileTarget(plugin.path);
  const records: RunRecord[] = [];
  const record = (
    outcome: RunRecord["outcome"],
    code: string | null,
    message: string,
    run: { durationMs: number; fuelUsed: number } = { durationMs: 0, fuelUsed: 0 },
  ) =>
    records.push({
      workspaceUid: req.workspaceUid,
      kind: "plugin",
      target,
      toolUid: null,
      toolName: def.id,
      stage: "tool",
      channel: "active",
      outcome,
      code,
      revisionId: plugin.revisionId,
      requestId: req.requestId,
      durationMs: run.durationMs,
      fuelUsed: run.fuelUsed,
      shadowDiffered: null,
      plugin: plugin.name,
      at: new Date().toISOString(),
      details: { message },
    });
  const refuseWith = (meta: RefusalMeta, outcome: RunRecord["outcome"] = "refused"): ToolCallAnswer => {
    record(outcome, meta.code, meta.message);
    return result(refusal(meta));
  };
  /** Set when the call re-runs on a fresh catalog (that run records, not this one). */
  let rerun = false;
  try {
    const access = decideAccess(
      { uid: def.id, publicName: def.id, risk: DEFAULT_TOOL_RISK },
      catalog.workspace,
      catalog.key,
      req.caller.profile,
    );
    if (!access.ok) return refuseWith({ code: access.code, reason: access.reason, message: access.message });
    const scope: PluginCallScope = {
      env,
      workspaceUid: req.workspaceUid,
      requestId: req.requestId,
      calledAt: new Date().toISOString(),
      ...clientOrigin(req),
      toolName: def.id,
    };
    // The key is not revoked and the plugin's revision is still the active one: null, else the
    // answer (a refusal, or a re-run when this isolate's copy of the catalog, and so of the
    // plugin list, is behind).
    const recheck = async (): Promise<Answer | null> => {
      const checked = await env.WORKSPACE.getByName(req.workspaceUid).recheckDispatch(
        target,
        plugin.revisionId,
        req.caller.keyId,
      );
      if (!catalog.fresh && checked.catalog !== catalog.version) {
        rerun = true;
        return STALE_CATALOG;
      }
      if (checked.ok) return null;
      return refuseWith(
        checked.code === "key_revoked"
          ? { code: "key_revoked", message: "The API key has been revoked." }
          : { code: "revision_changed", message: "The plugin changed during the call; retry it." },
      );
    };
    const execute = async (callArgs: JsonObject): Promise<ToolCallAnswer> => {
      const ran = await runPluginTool(plugin, def.id, callArgs, {
        requestId: req.requestId,
        workspaceUid: req.workspaceUid,
        calledAt: scope.calledAt,
      });
      if (!ran.ok) {
        record("error", "plugin_tool_failed", `${ran.code}: ${ran.message}`, ran);
        return result(
          refusal({
            code: "plugin_tool_failed",
            reason: ran.code,
            message: `Plugin tool ${def.id} failed: ${ran.message}`,
          }),
        );
      }
      record("return", null, `plugin tool ${def.id} ran`, ran);
      const after = await pluginsAfter(scope, set, callArgs, ran.result);
      records.push(...after.records);
      return result(after.result);
    };

    const tool = { id: def.id, revisionId: plugin.revisionId };
    if (req.approvalId !== null) {
      // An approved repeat: the stored call, once, under the plugin revision the approval bound.
      const approved = await approvedPluginToolCall(env.DB, req, req.approvalId, tool);
      if (!approved.ok) return refuseWith(approved.meta);
      // Rechecked before the approval is spent, so a stale plugin list never uses it up.
      const moved = await recheck();
      if (moved !== null) return moved;
      if (!(await consumeApproval(env.DB, req.workspaceUid, approved.id, Date.now()))) {
        return refuseWith({ code: "approval_used", message: "The approval was already used for one call." });
      }
      return await execute(approved.args);
    }

    const validator = getValidator(def.parameters, `plugin-tool:${plugin.revisionId}:${def.id}`);
    const given = validator.validate(req.arguments);
    if (!given.ok) {
      return refuseWith(
        failureMeta({
          code: "public_arguments_invalid",
          message: `The arguments do not match the parameters of ${def.id}.`,
          errors: given.error.errors,
        }),
      );
    }
    const plugged = await pluginsBefore(scope, set, req.arguments);
    records.push(...plugged.records);
    const args = plugged.args;
    if (!isJsonObject(args ?? null) || (plugged.changed && !validator.validate(args ?? null).ok)) {
      return refuseWith({
        code: "arguments_invalid",
        message: `Plugins' tool.execute.before left arguments that do not match the parameters of ${def.id}.`,
      });
    }
    const callArgs = args as JsonObject;
    const moved = await recheck();
    if (moved !== null) return moved;
    if (access.approval !== null) {
      return refuseWith(await requestPluginToolApproval(env.DB, req, tool, access.approval, callArgs));
    }
    return await execute(callArgs);
  } finally {
    // A call re-run on a fresh catalog records only that run.
    if (!rerun) deferRecords(ctx, env, { workspaceUid: req.workspaceUid, payloadCapture: false }, records);
  }
}
