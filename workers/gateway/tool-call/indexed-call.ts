// An indexed tool's call as its steps see it (tool-call.ts, approved-call.ts):
// fixed for the call, read by every step and changed by none. What a step
// learns it returns; what it runs goes to the call's one Recorder.
import { configAt } from "../../../shared/lease/config";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Json, JsonObject } from "../../../shared/json";
import type { Pointers } from "../../../shared/lifecycle/pointers";
import { toolTarget } from "../../../shared/lifecycle/target";
import { leasedView } from "../../../shared/lease/view";
import { callPlugins, type PluginSet } from "../../../shared/plugins/call-plugins";
import type { CatalogTool } from "../../../shared/services/catalog";
import { Recorder, runRecord, type RecordScope } from "../../../shared/adapter/records";
import { refusal, type RefusalMeta } from "../../../shared/mcp/tool-results";
import type { WorkspaceCatalog } from "../caches/catalog-cache";
import type { LoadedRevision } from "../caches/revision-cache";
import type { PluginCallScope } from "../plugins/execute-hooks";
import {
  answered,
  clientOrigin,
  result,
  type Answered,
  type RiskApproval,
  type ToolCallAnswer,
  type ToolCallRequest,
} from "./call-types";
import type { GatewayEnv } from "../env";
import { scheduleShadow } from "./shadow";
import type { Comparable } from "./stages";

export interface IndexedCall {
  readonly env: GatewayEnv;
  readonly ctx: Pick<ExecutionContext, "waitUntil">;
  readonly req: ToolCallRequest;
  readonly catalog: WorkspaceCatalog;
  readonly found: CatalogTool;
  readonly target: string;
  readonly scope: RecordScope;
  readonly calledAt: string;
  /** The workspace's active plugins, read beside the call's first steps (never rejects). */
  readonly plugins: Promise<PluginSet>;
  readonly recorder: Recorder;
}

export function indexedCall(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
  found: CatalogTool,
): IndexedCall {
  const { tool, service } = found;
  const target = toolTarget(tool.uid);
  const scope: RecordScope = {
    workspaceUid: req.workspaceUid,
    target,
    toolUid: tool.uid,
    toolName: tool.publicName ?? tool.upstreamName,
    requestId: req.requestId,
    payloadCapture: service.payloadCapture,
    mode: req.mode,
    config: () => configAt(env, req.workspaceUid, catalog.version),
  };
  return {
    env,
    ctx,
    req,
    catalog,
    found,
    target,
    scope,
    calledAt: new Date().toISOString(),
    plugins: callPlugins(env, req.workspaceUid),
    recorder: new Recorder(scope),
  };
}

/** What access grants an indexed tool's call. */
export interface Granted {
  /** The upstream's bearer token; it reaches no hook. */
  bearer: string | null;
  risk: RiskApproval | null;
}

/** What a shadow run of the call compares with: the pointers it was answered under, the active `before`. */
export interface ShadowView {
  pointers: Pointers;
  /** Null when no `before` ran this call (an approved repeat). */
  before: Comparable | null;
}

/** The upstream's result, for step 5. */
export interface Dispatched {
  revision: LoadedRevision | null;
  args: JsonObject;
  result: CallToolResult;
  shadow: ShadowView;
}

/** A pipeline refusal, recorded. */
export function refuse(call: IndexedCall, meta: RefusalMeta, revisionId: string | null): ToolCallAnswer {
  call.recorder.record(
    runRecord(call.scope, {
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: meta.code,
      revisionId,
      details: { message: meta.message, ...(meta.reason === undefined ? {} : { reason: meta.reason }) },
    }),
  );
  return result(refusal(meta));
}

/**
 * Starts the shadow run of what the call's active side did after the
 * response: its `before`, and its `after` on the live result when one came.
 */
export function shadowCall(
  call: IndexedCall,
  shadow: ShadowView,
  after: Comparable | null = null,
  liveResult: Json | null = null,
): void {
  // Most tools have no shadow revision: nothing to describe.
  if (shadow.pointers.shadow?.revisionId === undefined) return;
  scheduleShadow(call, shadow.pointers, {
    publicArguments: call.req.arguments,
    before: shadow.before,
    after,
    liveResult,
  });
}

/** The answer, with the shadow run of the call's `before` started after the response. */
export function answeredWithShadow(call: IndexedCall, answer: ToolCallAnswer, shadow: ShadowView): Answered {
  shadowCall(call, shadow);
  return answered(answer);
}

/** Whether the call's catalog is current: read for this call, or at the lease's catalog version. */
export async function catalogCurrent(call: IndexedCall): Promise<boolean> {
  if (call.catalog.fresh) return true;
  const { view } = await leasedView(call.env, call.req.workspaceUid);
  return view.catalog === call.catalog.version;
}

export const pluginScope = (call: IndexedCall): PluginCallScope => ({
  env: call.env,
  workspaceUid: call.req.workspaceUid,
  requestId: call.req.requestId,
  calledAt: call.calledAt,
  ...clientOrigin(call.req),
  toolName: call.scope.toolName,
  toolUid: call.found.tool.uid,
});

/** The refusal of a dispatch recheck that failed; `changed` names what moved under the call. */
export const recheckRefusal = (
  code: "key_revoked" | "revision_changed",
  changed = "The active revision",
): RefusalMeta =>
  code === "key_revoked"
    ? { code: "key_revoked", message: "The API key has been revoked." }
    : { code: "revision_changed", message: `${changed} changed during the call; retry it.` };
