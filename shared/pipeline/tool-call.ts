// The tool-call path, in its order:
//   1) access: the key's access profile, review state, live tool, upstream
//      authorization — decided before any hook runs, and no hook can weaken it;
//   2) public arguments against the public input schema, then the active `before`;
//   3) transformed arguments against the upstream schema and the size bound;
//      an approval binds the exact active revision and the exact transformed call;
//   4) one WorkspaceObject round trip (active revision unchanged, key not revoked),
//      upstream authorization, exactly one upstream `tools/call`;
//   5) `after`, public output validation, response projection.
// Plugins run between the
// adapter's `before` and the upstream-schema check (`tool.execute.before`: a
// plugin can change the call but not smuggle an invalid one past that check,
// and an approval's hash covers the call they leave), and right after the
// upstream answers (`tool.execute.after`, on upstream tool errors too), before
// the adapter's `after`.
// Every tool-level refusal is a CallToolResult with `_meta["rayrun/error"]`.
// Shadow revisions run after the response (shadow.ts); run records are written
// after the response (records.ts).
// This file has the entry and step 1; steps 2)–4) of a first call are in
// call-attempt.ts, an approved repeat in approved-call.ts, the dispatch and
// step 5 in finish.ts, a plugin tool's call in plugin-tool-call.ts, and what
// they share in call-state.ts.
import { serviceBearer } from "./service-bearer";
import { decideAccess } from "../access";
import { toolTarget } from "../lifecycle/target";
import { callPlugins } from "../plugins/call-plugins";
import { runApprovedCall } from "./approved-call";
import { attemptCall } from "./call-attempt";
import {
  catalogCurrent,
  refuse,
  result,
  STALE_CATALOG,
  type Answer,
  type CallState,
  type GatewayEnv,
  type ToolCallAnswer,
  type ToolCallRequest,
} from "./call-state";
import { findUnavailableTool } from "./catalog";
import { workspaceCatalog, type WorkspaceCatalog } from "./catalog-cache";
import { cachedPointers, rememberPointers } from "./pointer-cache";
import { handlePluginToolCall } from "./plugin-tool-call";
import { deferRecords, runRecord, supersede, type RecordScope } from "./records";
import { refusal, type RefusalMeta } from "./results";

export async function handleToolCall(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
): Promise<ToolCallAnswer> {
  let catalog = await workspaceCatalog(env, req.workspaceUid, req.caller.profile);
  for (;;) {
    const answer = await handleWithCatalog(env, ctx, req, catalog);
    if (answer.kind !== "stale_catalog") return answer;
    catalog = await workspaceCatalog(env, req.workspaceUid, req.caller.profile, { reload: true });
  }
}

async function handleWithCatalog(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
): Promise<Answer> {
  const found = catalog.byName.get(req.name);
  if (found === undefined) {
    const pluginAnswer = await handlePluginToolCall(env, ctx, req, catalog);
    if (pluginAnswer !== null) return pluginAnswer;
    return catalog.fresh ? unavailableOrUnknown(env, ctx, req) : STALE_CATALOG;
  }
  const { tool, service } = found;
  const target = toolTarget(tool.uid);
  const state: CallState = {
    env,
    catalog,
    ctx,
    req,
    calledAt: new Date().toISOString(),
    found,
    target,
    scope: {
      workspaceUid: req.workspaceUid,
      target,
      toolUid: tool.uid,
      toolName: tool.publicName ?? tool.upstreamName,
      requestId: req.requestId,
      payloadCapture: service.payloadCapture,
    },
    records: [],
    bearer: null,
    plugins: callPlugins(env, req.workspaceUid, catalog.version),
  };
  let answer: Answer | undefined;
  try {
    answer = await runCall(state);
    return answer;
  } finally {
    // A call re-run on a fresh catalog records only that run.
    if (answer?.kind !== "stale_catalog") deferRecords(ctx, env, state.scope, state.records);
  }
}

async function unavailableOrUnknown(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
): Promise<ToolCallAnswer> {
  const gone = await findUnavailableTool(env.DB, req.workspaceUid, req.name);
  if (!gone) return { kind: "unknown_tool" };
  const reason = gone.deletedAt !== null || gone.legacy ? "service_deleted" : "tool_removed";
  const meta: RefusalMeta = {
    code: "tool_unavailable",
    reason,
    message:
      reason === "service_deleted"
        ? `Tool ${req.name} belongs to a deleted service.`
        : `Tool ${req.name} is no longer offered by its upstream.`,
  };
  const scope: RecordScope = {
    workspaceUid: req.workspaceUid,
    target: toolTarget(gone.uid),
    toolUid: gone.uid,
    toolName: req.name,
    requestId: req.requestId,
    payloadCapture: false,
  };
  deferRecords(ctx, env, scope, [
    runRecord(scope, {
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: meta.code,
      revisionId: null,
      details: { reason, message: meta.message },
    }),
  ]);
  return result(refusal(meta));
}

/**
 * A refusal decided on an isolate copy of the catalog is answered only once
 * the copy is confirmed current (refusals are rare; answering a stale one
 * would outlive the change that lifted it).
 */
async function refuseOnCatalog(state: CallState, meta: RefusalMeta): Promise<Answer> {
  return (await catalogCurrent(state)) ? refuse(state, meta, null) : STALE_CATALOG;
}

async function runCall(state: CallState): Promise<Answer> {
  const { env, req, found, catalog } = state;
  const { tool, service } = found;
  const name = tool.publicName ?? tool.upstreamName;

  // 1) Access, decided on the public tool before any hook runs.
  if (tool.removedAt !== null || service.deletedAt !== null || service.legacy) {
    const reason = tool.removedAt !== null ? "tool_removed" : "service_deleted";
    return refuseOnCatalog(state, {
      code: "tool_unavailable",
      reason,
      message: `Tool ${name} is not available.`,
    });
  }
  const access = decideAccess(
    { uid: tool.uid, publicName: name, risk: found.risk },
    catalog.workspace,
    catalog.key,
    req.caller.profile,
  );
  if (!access.ok)
    return refuseOnCatalog(state, { code: access.code, reason: access.reason, message: access.message });
  if (tool.reviewState === "review_required") {
    return refuseOnCatalog(state, {
      code: "review_required",
      message: `The upstream changed the definition of ${name}; an administrator must accept it before it can be called.`,
    });
  }
  const bearer = await serviceBearer(env.RAYRUN_BOOTSTRAP_KEY, req.workspaceUid, service, found.secret);
  if (!bearer.ok) {
    return refuseOnCatalog(state, {
      code: "upstream_unauthorized",
      message: `The upstream of ${name} needs the workspace secret ${bearer.secret}, which is not set.`,
    });
  }
  state.bearer = bearer.token;

  if (req.approvalId !== null) return runApprovedCall(state, req.approvalId);

  // 2)–4) with the isolate's pointer view; a stale view re-runs the stages once.
  let pointers = cachedPointers(req.workspaceUid, state.target);
  let fresh = false;
  if (pointers === undefined) {
    pointers = await env.WORKSPACE.getByName(req.workspaceUid).getPointers(state.target);
    rememberPointers(req.workspaceUid, state.target, pointers);
    fresh = true;
  }
  for (;;) {
    const attemptStart = state.records.length;
    const attempt = await attemptCall(state, pointers, fresh, access.approval);
    if (attempt.kind === "stale") {
      supersede(state.records, attemptStart);
      pointers = attempt.pointers;
      fresh = true;
      continue;
    }
    return attempt.answer;
  }
}
