// The steps of a call of a tool a plugin defines rather than an indexed
// upstream tool (tool-call.ts runs them in its order): no adapter revision and
// no upstream. Its arguments are checked against the tool's `parameters`
// before and after plugins' tool.execute.before, its `execute` runs in a fresh
// sandbox that took it from its own call of `tool()`, and a failing `execute`
// is a tool error (`plugin_tool_failed`). It refuses like the upstream path.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TOOL_RISK, decideAccess } from "../../../shared/access";
import { consumeApproval } from "../../../shared/approvals";
import { Recorder } from "../../../shared/adapter/records";
import { getValidator } from "../../../shared/contract/validator";
import type { PluginToolDef } from "../../../shared/deploy/revisions";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { fileTarget } from "../../../shared/lifecycle/target";
import type { RunRecord } from "../../../shared/logs";
import { callPlugins, type PluginSet } from "../../../shared/plugins/call-plugins";
import type { DeployedPlugin } from "../../../shared/plugins/discovery";
import { refusal, type RefusalMeta } from "../../../shared/mcp/tool-results";
import type { WorkspaceCatalog } from "../caches/catalog-cache";
import { pluginsAfter, pluginsBefore, type PluginCallScope } from "../plugins/execute-hooks";
import { offeredPluginTools, runPluginTool } from "../plugins/tool-execute";
import {
  answered,
  clientOrigin,
  result,
  riskReason,
  STALE_CATALOG,
  type Answered,
  type Approve,
  type Next,
  type RiskApproval,
  type Send,
  type ToolCallAnswer,
  type ToolCallRequest,
} from "./call-types";
import type { GatewayEnv } from "../env";
import { approvedPluginToolCall, requestPluginToolApproval } from "./plugin-tool-approval";
import { recheckDispatch } from "./recheck";
import { recheckRefusal } from "./indexed-call";
import { failureMeta } from "./stages";

export interface PluginToolCall {
  readonly env: GatewayEnv;
  readonly req: ToolCallRequest;
  readonly catalog: WorkspaceCatalog;
  readonly plugins: PluginSet;
  readonly def: PluginToolDef;
  readonly plugin: DeployedPlugin;
  readonly target: string;
  readonly scope: PluginCallScope;
  readonly recorder: Recorder;
}

/** The call of the plugin tool `req.name` names, or null when it names none. */
export async function findPluginTool(
  env: GatewayEnv,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
): Promise<PluginToolCall | null> {
  const plugins = await callPlugins(env, req.workspaceUid);
  if (!plugins.plugins.some((p) => p.hooks.includes("tool"))) return null;
  const indexed = new Set(catalog.tools.map(({ tool }) => tool.publicName ?? tool.upstreamName));
  const offered = (await offeredPluginTools(env, req.workspaceUid, plugins.plugins, indexed)).get(req.name);
  if (offered === undefined) return null;
  const { def, plugin } = offered;
  return {
    env,
    req,
    catalog,
    plugins,
    def,
    plugin,
    target: fileTarget(plugin.path),
    scope: {
      env,
      workspaceUid: req.workspaceUid,
      requestId: req.requestId,
      calledAt: new Date().toISOString(),
      ...clientOrigin(req),
      toolName: def.id,
    },
    recorder: new Recorder({ workspaceUid: req.workspaceUid, payloadCapture: false, mode: req.mode }),
  };
}

/** What access grants a plugin tool's call. */
export interface PluginGranted {
  risk: RiskApproval | null;
}

/** The call to `execute`, and the approval it spends when it is an approved repeat. */
export interface PluginToolArgs {
  args: JsonObject;
  approvalId: string | null;
}

/** What `execute` returned, for step 5. */
export interface PluginToolRan {
  args: JsonObject;
  result: CallToolResult;
}

/** 1) Access, by the tool's id (plugin tools have no uid and the default risk). */
export async function pluginToolAccess(call: PluginToolCall): Promise<Next<PluginGranted> | Answered> {
  const { id } = call.def;
  const access = decideAccess(
    { uid: id, publicName: id, risk: DEFAULT_TOOL_RISK },
    call.catalog.workspace,
    call.catalog.key,
    call.req.caller.profile,
  );
  if (!access.ok) {
    const { code, reason, message } = access.error;
    return refuse(call, { code, reason, message });
  }
  return { kind: "next", risk: access.value };
}

/** 2) The arguments against `parameters`, then plugins' tool.execute.before and `parameters` again. */
export async function pluginToolBefore(call: PluginToolCall): Promise<Next<PluginToolArgs> | Answered> {
  const { def, plugin, req } = call;
  const validator = getValidator(def.parameters, `plugin-tool:${plugin.revisionId}:${def.id}`);
  const given = validator.validate(req.arguments);
  if (!given.ok) {
    return refuse(
      call,
      failureMeta({
        code: "public_arguments_invalid",
        message: `The arguments do not match the parameters of ${def.id}.`,
        errors: given.error.errors,
      }),
    );
  }
  const plugged = await pluginsBefore(call.scope, call.plugins, req.arguments);
  call.recorder.recordAll(plugged.records);
  const args = plugged.args;
  if (!isJsonObject(args ?? null) || (plugged.changed && !validator.validate(args ?? null).ok)) {
    return refuse(call, {
      code: "arguments_invalid",
      message: `Plugins' tool.execute.before left arguments that do not match the parameters of ${def.id}.`,
    });
  }
  return { kind: "next", args: args as JsonObject, approvalId: null };
}

/** 2) of an approved repeat: the stored call, under the plugin revision the approval bound. */
export async function storedPluginToolCall(call: PluginToolCall): Promise<Next<PluginToolArgs> | Answered> {
  const approved = await approvedPluginToolCall(call.env.DB, call.req, toolOf(call));
  if (!approved.ok) return refuse(call, approved.error);
  return { kind: "next", args: approved.value.args, approvalId: approved.value.id };
}

/** 3) Approval when the tool's risk needs it; an approved repeat is sent as stored. */
export function checkPluginToolCall(
  call: PluginToolCall,
  granted: PluginGranted,
  { args, approvalId }: PluginToolArgs,
): Send | Approve {
  if (approvalId !== null || granted.risk === null) return { kind: "send", args };
  return { kind: "approve", args, source: "risk", reason: riskReason(call.def.id, granted.risk) };
}

/**
 * 4) The recheck, then the approval request, or `execute`. An approved repeat's
 * approval is spent only after the recheck, so a stale plugin list never uses it up.
 */
export async function dispatchPluginTool(
  call: PluginToolCall,
  _granted: PluginGranted,
  { approvalId }: PluginToolArgs,
  decided: Send | Approve,
): Promise<Next<PluginToolRan> | Answered> {
  const { env, req, def, plugin } = call;
  const moved = await recheck(call);
  if (moved !== null) return moved;
  if (decided.kind === "approve") {
    return refuse(
      call,
      await requestPluginToolApproval(env.DB, req, toolOf(call), decided.reason, decided.args),
    );
  }
  if (approvalId !== null && !(await consumeApproval(env.DB, req.workspaceUid, approvalId, Date.now()))) {
    return refuse(call, { code: "approval_used", message: "The approval was already used for one call." });
  }
  const ran = await runPluginTool(plugin, def.id, decided.args, {
    requestId: req.requestId,
    workspaceUid: req.workspaceUid,
    calledAt: call.scope.calledAt,
  });
  if (!ran.outcome.ok) {
    const failure = ran.outcome.error;
    call.recorder.record(
      pluginToolRecord(call, "error", "plugin_tool_failed", `${failure.code}: ${failure.message}`, ran),
    );
    return answered(
      result(
        refusal({
          code: "plugin_tool_failed",
          reason: failure.code,
          message: `Plugin tool ${def.id} failed: ${failure.message}`,
        }),
      ),
    );
  }
  call.recorder.record(pluginToolRecord(call, "return", null, `plugin tool ${def.id} ran`, ran));
  return { kind: "next", args: decided.args, result: ran.outcome.value };
}

/** 5) Plugins' tool.execute.after on what `execute` returned. */
export async function pluginToolAfter(
  call: PluginToolCall,
  { args, result: ran }: PluginToolRan,
): Promise<ToolCallAnswer> {
  const after = await pluginsAfter(call.scope, call.plugins, args, ran);
  call.recorder.recordAll(after.records);
  return result(after.result);
}

/**
 * The key is not revoked and the plugin's revision is still the active one:
 * null, else the answer (a refusal, or a re-run when this isolate's copy of
 * the catalog, and so of the plugin list, is behind).
 */
async function recheck(call: PluginToolCall): Promise<Answered | null> {
  const { env, req, catalog } = call;
  const checked = await recheckDispatch(env, req, call.target, call.plugin.revisionId);
  if (!catalog.fresh && checked.catalog !== catalog.version) return answered(STALE_CATALOG);
  if (checked.kind === "current") return null;
  return refuse(call, recheckRefusal(checked.kind, "The plugin"));
}

const toolOf = (call: PluginToolCall) => ({ id: call.def.id, revisionId: call.plugin.revisionId });

/** A refusal of the call, recorded against the plugin. */
function refuse(call: PluginToolCall, meta: RefusalMeta): Answered {
  call.recorder.record(pluginToolRecord(call, "refused", meta.code, meta.message));
  return answered(result(refusal(meta)));
}

function pluginToolRecord(
  call: PluginToolCall,
  outcome: RunRecord["outcome"],
  code: string | null,
  message: string,
  run: { durationMs: number; fuelUsed: number } = { durationMs: 0, fuelUsed: 0 },
): RunRecord {
  return {
    workspaceUid: call.req.workspaceUid,
    kind: "plugin",
    target: call.target,
    toolUid: null,
    toolName: call.def.id,
    stage: "tool",
    channel: "active",
    outcome,
    code,
    revisionId: call.plugin.revisionId,
    requestId: call.req.requestId,
    durationMs: run.durationMs,
    fuelUsed: run.fuelUsed,
    shadowDiffered: null,
    plugin: call.plugin.name,
    at: new Date().toISOString(),
    details: { message },
  };
}
