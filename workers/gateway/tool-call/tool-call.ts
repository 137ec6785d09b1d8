// The tool-call path. `runCall` is a call, in its order:
//   1) access: the key's access profile, review state, live tool, upstream
//      authorization, decided before any hook runs, so no hook can weaken it;
//   2) the public arguments against the public input schema, the active
//      `before`, then plugins' `tool.execute.before`;
//   3) the call they leave against the upstream schema and the size bound
//      (plugins can change the call but not smuggle an invalid one past
//      this), and whether it needs approval;
//   4) one WorkspaceObject round trip (active revision unchanged, key not
//      revoked), then the refusal, the approval request, or exactly one
//      upstream `tools/call`: an approval binds the exact revision that ran
//      and the exact call step 3 checked, and a call refused before this
//      point never reaches the upstream;
//   5) plugins' `tool.execute.after` (on upstream tool errors too: they see
//      every result), then the active `after`, public output validation,
//      response projection. A tool error skips `after`; a JSON-RPC error
//      skips this step and stays the upstream's.
// The variants of a call keep that order and swap steps (the tables below):
// an approved repeat sends the call its approval stored instead of running
// hooks, and a plugin tool runs its `execute` instead of an upstream.
// Every tool-level refusal is a CallToolResult with `_meta["rayrun/error"]`.
// Shadow revisions run, and the call's run records are written, after the response.
import { decideAccess } from "../../../shared/access";
import { LeaseUnavailable, leasedView } from "../../../shared/lease/view";
import { createApproval } from "../../../shared/approvals";
import { schemaFailure, type StepRun } from "../../../shared/adapter/steps";
import { runRecord, stepRecord, type Recorder } from "../../../shared/adapter/records";
import { isJsonObject, utf8Bytes, type Json } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { upstreamSchemas } from "../../../shared/services/catalog";
import {
  afterInput,
  refusal,
  WORKSPACE_UNAVAILABLE,
  type RefusalMeta,
} from "../../../shared/mcp/tool-results";
import { workspaceCatalog, type WorkspaceCatalog } from "../caches/catalog-cache";
import { loadRevision, type LoadedRevision } from "../caches/revision-cache";
import { pluginsAfter, pluginsBefore } from "../plugins/execute-hooks";
import { checkStoredCall, dispatchApproved, storedCall, type StoredCall } from "./approved-call";
import {
  answered,
  pipelineFaults,
  result,
  riskReason,
  STALE_CATALOG,
  type Answer,
  type Answered,
  type Approve,
  type Decision,
  type Next,
  type Refuse,
  type Retry,
  type Send,
  type ToolCallAnswer,
  type ToolCallRequest,
} from "./call-types";
import type { GatewayEnv } from "../env";
import { sendUpstream } from "./dispatch";
import {
  answeredWithShadow,
  catalogCurrent,
  indexedCall,
  pluginScope,
  recheckRefusal,
  refuse,
  shadowCall,
  type Dispatched,
  type Granted,
  type IndexedCall,
} from "./indexed-call";
import {
  checkPluginToolCall,
  dispatchPluginTool,
  findPluginTool,
  pluginToolAccess,
  pluginToolAfter,
  pluginToolBefore,
  storedPluginToolCall,
  type PluginGranted,
  type PluginToolArgs,
  type PluginToolCall,
  type PluginToolRan,
} from "./plugin-tool-call";
import { afterOutput, checkedOutput } from "./call-output";
import { revisionGone, stagePointers, type PointerView } from "./pointer-view";
import { recheckDispatch } from "./recheck";
import { serviceBearer } from "../upstream/service-bearer";
import { comparable, failureMeta, runAfter, runBefore, validatorKeys } from "./stages";
import { unavailableOrUnknown } from "./unavailable-tool";

export async function handleToolCall(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
): Promise<ToolCallAnswer> {
  try {
    const { view } = await leasedView(env, req.workspaceUid, (p) => ctx.waitUntil(p));
    let catalog = await workspaceCatalog(env, req.workspaceUid, req.caller.profile, {
      version: view.catalog,
    });
    for (;;) {
      const answer = await callOnCatalog(env, ctx, req, catalog);
      if (answer.kind !== "stale_catalog") return answer;
      const { view: now } = await leasedView(env, req.workspaceUid);
      catalog = await workspaceCatalog(env, req.workspaceUid, req.caller.profile, {
        version: now.catalog,
        reload: true,
      });
    }
  } catch (error) {
    // No lease and no answer from the workspace's home: nothing may be dispatched unchecked.
    if (error instanceof LeaseUnavailable) return result(refusal(WORKSPACE_UNAVAILABLE));
    throw error;
  }
}

/** The call under one copy of the catalog: of an indexed tool, of a plugin tool, or of neither. */
async function callOnCatalog(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
): Promise<Answer> {
  const found = catalog.byName.get(req.name);
  if (found !== undefined) {
    const call = indexedCall(env, ctx, req, catalog, found);
    const running = req.approvalId === null ? runCall(INDEXED_TOOL, call) : runCall(APPROVED_REPEAT, call);
    return await recorded(env, ctx, call.recorder, running);
  }
  const pluginTool = await findPluginTool(env, req, catalog);
  if (pluginTool !== null) {
    const running =
      req.approvalId === null ? runCall(PLUGIN_TOOL, pluginTool) : runCall(APPROVED_PLUGIN_TOOL, pluginTool);
    return await recorded(env, ctx, pluginTool.recorder, running);
  }
  return catalog.fresh ? unavailableOrUnknown(env, ctx, req) : STALE_CATALOG;
}

/** The call's answer; its run records go to the log store after the response. */
async function recorded(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  recorder: Recorder,
  running: Promise<Answer>,
): Promise<Answer> {
  let answer: Answer | undefined;
  try {
    answer = await running;
    return answer;
  } finally {
    // A call re-run on a fresh catalog records only that run.
    if (answer?.kind !== "stale_catalog") recorder.flush(ctx, env);
  }
}

/** One kind of call's steps 1)–5), each handing the next what it needs. */
interface CallSteps<Call, Grant, Prepared, Decided, Sent, View> {
  access: (call: Call) => Promise<Next<Grant> | Answered>;
  before: (call: Call, granted: Grant, view: View | null) => Promise<Next<Prepared> | Answered | Retry<View>>;
  /** Synchronous: it only checks what step 2 left. */
  check: (call: Call, granted: Grant, prepared: Prepared) => Decided;
  dispatch: (
    call: Call,
    granted: Grant,
    prepared: Prepared,
    decided: Decided,
  ) => Promise<Next<Sent> | Answered | Retry<View>>;
  after: (call: Call, sent: Sent) => Promise<ToolCallAnswer>;
}

/**
 * A call, in its order. When the recheck finds that the stages ran under an
 * isolate's stale copy of the tool's pointers, steps 2–4 run again under the
 * current ones, and what the first run recorded is marked as having decided nothing.
 */
async function runCall<Call extends { recorder: Recorder }, Grant, Prepared, Decided, Sent, View>(
  steps: CallSteps<Call, Grant, Prepared, Decided, Sent, View>,
  call: Call,
): Promise<Answer> {
  const granted = await steps.access(call);
  if (granted.kind === "answer") return granted.answer;
  let view: View | null = null;
  for (;;) {
    const attempt = call.recorder.mark();
    const prepared = await steps.before(call, granted, view);
    if (prepared.kind === "answer") return prepared.answer;
    if (prepared.kind === "retry") {
      call.recorder.supersede(attempt);
      view = prepared.view;
      continue;
    }
    const decided = steps.check(call, granted, prepared);
    const sent = await steps.dispatch(call, granted, prepared, decided);
    if (sent.kind === "answer") return sent.answer;
    if (sent.kind === "retry") {
      call.recorder.supersede(attempt);
      view = sent.view;
      continue;
    }
    return await steps.after(call, sent);
  }
}

/** An indexed tool's call: its adapter's hooks around one upstream `tools/call`. */
const INDEXED_TOOL: CallSteps<IndexedCall, Granted, BeforeRan, Decision, Dispatched, PointerView> = {
  access,
  before,
  check: checkUpstream,
  dispatch: recheckAndDispatch,
  after,
};

/** Its approved repeat: no hook runs; the call the approval stored goes upstream under the revision it bound. */
const APPROVED_REPEAT: CallSteps<IndexedCall, Granted, StoredCall, Send | Refuse, Dispatched, never> = {
  access,
  before: storedCall,
  check: checkStoredCall,
  dispatch: dispatchApproved,
  after,
};

/** A plugin tool's call: no adapter, and the plugin's `execute` in place of an upstream. */
const PLUGIN_TOOL: CallSteps<
  PluginToolCall,
  PluginGranted,
  PluginToolArgs,
  Send | Approve,
  PluginToolRan,
  never
> = {
  access: pluginToolAccess,
  before: pluginToolBefore,
  check: checkPluginToolCall,
  dispatch: dispatchPluginTool,
  after: pluginToolAfter,
};

/** Its approved repeat: the call the approval stored, under the plugin revision it bound. */
const APPROVED_PLUGIN_TOOL: typeof PLUGIN_TOOL = { ...PLUGIN_TOOL, before: storedPluginToolCall };

/** 1) Access, decided on the public tool before any hook runs. */
async function access(call: IndexedCall): Promise<Next<Granted> | Answered> {
  const { env, req, found, catalog } = call;
  const { tool, service } = found;
  const name = call.scope.toolName;
  if (tool.removedAt !== null || service.deletedAt !== null || service.legacy) {
    const reason = tool.removedAt !== null ? "tool_removed" : "service_deleted";
    return refuseOnCatalog(call, {
      code: "tool_unavailable",
      reason,
      message: `Tool ${name} is not available.`,
    });
  }
  const decided = decideAccess(
    { uid: tool.uid, publicName: name, risk: found.risk },
    catalog.workspace,
    catalog.key,
    req.caller.profile,
  );
  if (!decided.ok) {
    const { code, reason, message } = decided.error;
    return refuseOnCatalog(call, { code, reason, message });
  }
  if (tool.reviewState === "review_required") {
    return refuseOnCatalog(call, {
      code: "review_required",
      message: `The upstream changed the definition of ${name}; an administrator must accept it before it can be called.`,
    });
  }
  const bearer = await serviceBearer(env.RAYRUN_BOOTSTRAP_KEY, req.workspaceUid, service, found.secret);
  if (!bearer.ok) {
    return refuseOnCatalog(call, {
      code: "upstream_unauthorized",
      message: `The upstream of ${name} needs the workspace secret ${bearer.error.secret}, which is not set.`,
    });
  }
  return { kind: "next", bearer: bearer.value, risk: decided.value };
}

/**
 * A refusal decided on an isolate copy of the catalog is answered only once
 * the copy is confirmed current (refusals are rare; answering a stale one
 * would outlive the change that lifted it).
 */
async function refuseOnCatalog(call: IndexedCall, meta: RefusalMeta): Promise<Answered> {
  return answered((await catalogCurrent(call)) ? refuse(call, meta, null) : STALE_CATALOG);
}

/** What step 2 ran, under which revision. */
interface BeforeRan {
  view: PointerView;
  revision: LoadedRevision | null;
  /** The active revision the recheck expects: the one whose `before` ran. */
  revisionId: string | null;
  step: StepRun;
  /** Plugins' tool.execute.before, when `before` left them a call. */
  plugged: { args: Json | undefined; changed: boolean } | null;
}

/** 2) The public arguments and `before` of the active revision, then plugins' tool.execute.before. */
async function before(
  call: IndexedCall,
  _granted: Granted,
  retry: PointerView | null,
): Promise<Next<BeforeRan> | Answered | Retry<PointerView>> {
  const { env, req, target, recorder } = call;
  const view = retry ?? (await stagePointers(call));
  const revisionId = view.pointers.active?.revisionId ?? null;
  const revision = revisionId === null ? null : await loadRevision(env, req.workspaceUid, target, revisionId);
  if (revisionId !== null && revision === null) return revisionGone(call, view, revisionId);
  const step = await runBefore(call, revision, req.arguments);
  if (step.ran)
    recorder.record(stepRecord(call.scope, step, "active", revisionId, { arguments: req.arguments }));
  let plugged: BeforeRan["plugged"] = null;
  if (step.ok && (step.value.action === "continue" || step.value.action === "approval")) {
    const args = step.value.arguments;
    // Plugins fail open; step 3 checks what they leave, failing closed.
    if (isJsonObject(args)) {
      const ran = await pluginsBefore(pluginScope(call), await call.plugins, args);
      recorder.recordAll(ran.records);
      plugged = ran;
    }
  }
  return { kind: "next", view, revision, revisionId, step, plugged };
}

/** 3) The call `before` and plugins left, against the upstream schema and the size bound; approval when needed. */
function checkUpstream(call: IndexedCall, granted: Granted, ran: BeforeRan): Decision {
  const { step, plugged } = ran;
  if (!step.ok) return { kind: "refuse", meta: failureMeta(step.error), recorded: step.ran };
  const outcome = step.value;
  if (outcome.action === "reject") {
    const meta = { code: "rejected", reason: outcome.reason, message: outcome.message };
    return { kind: "refuse", meta, recorded: true };
  }
  if (outcome.action !== "continue" && outcome.action !== "approval") return { kind: "send", args: {} };
  let args = outcome.arguments;
  if (plugged?.changed) {
    if (plugged.args === undefined) {
      return upstreamInvalid("Plugins' tool.execute.before left no arguments to send upstream.");
    }
    args = plugged.args;
    // `before` checked its own output against the upstream schema; what plugins changed is checked here.
    const invalid = schemaFailure(
      "upstream_arguments_invalid",
      upstreamSchemas(call.found.tool).inputSchema,
      args,
      validatorKeys(call.found.tool, ran.revision).upstreamInput,
    );
    if (invalid) return { kind: "refuse", meta: failureMeta(invalid), recorded: false };
  }
  if (!isJsonObject(args)) return upstreamInvalid("Tool arguments sent upstream must be a JSON object.");
  const bytes = utf8Bytes(JSON.stringify(args));
  if (bytes > LIMITS.upstreamArgumentsBytes) {
    const message = `The arguments sent upstream would be ${bytes} bytes; the limit is ${LIMITS.upstreamArgumentsBytes}.`;
    return { kind: "refuse", meta: { code: "call_too_large", message }, recorded: false };
  }
  if (outcome.action === "approval") return { kind: "approve", args, source: "hook", reason: outcome.reason };
  if (granted.risk !== null) {
    return { kind: "approve", args, source: "risk", reason: riskReason(call.scope.toolName, granted.risk) };
  }
  return { kind: "send", args };
}

const upstreamInvalid = (message: string): Refuse => ({
  kind: "refuse",
  meta: { code: "upstream_arguments_invalid", message },
  recorded: false,
});

/**
 * 4) The one round trip (the revision that ran is still active, the key is not
 * revoked), then what step 3 decided: refuse, ask for approval, or dispatch.
 * Pointers that moved under an isolate copy send the call back to step 2.
 */
async function recheckAndDispatch(
  call: IndexedCall,
  granted: Granted,
  ran: BeforeRan,
  decided: Decision,
): Promise<Next<Dispatched> | Answered | Retry<PointerView>> {
  const { env, req, target, catalog } = call;
  const { view, revision, revisionId } = ran;
  const activeBefore = comparable(ran.step);
  if (decided.kind === "refuse" && view.fresh) {
    const shadow = { pointers: view.pointers, before: activeBefore };
    return answeredWithShadow(call, refused(call, decided, revisionId), shadow);
  }
  await pipelineFaults.beforeDispatch?.(req);
  const recheck = await recheckDispatch(env, req, target, revisionId);
  if (!catalog.fresh && recheck.catalog !== catalog.version) return answered(STALE_CATALOG);
  if (recheck.kind === "revision_changed" && !view.fresh) {
    return { kind: "retry", view: { pointers: recheck.pointers, fresh: true } };
  }
  const shadow = { pointers: recheck.pointers, before: activeBefore };
  if (recheck.kind !== "current")
    return answeredWithShadow(call, refuse(call, recheckRefusal(recheck.kind), revisionId), shadow);
  if (decided.kind === "refuse") return answeredWithShadow(call, refused(call, decided, revisionId), shadow);
  if (decided.kind === "approve") {
    return answeredWithShadow(call, await requestApproval(call, revisionId, decided), shadow);
  }
  return await sendUpstream(call, granted.bearer, revision, decided.args, shadow);
}

const refused = (call: IndexedCall, decided: Refuse, revisionId: string | null): ToolCallAnswer =>
  decided.recorded ? result(refusal(decided.meta)) : refuse(call, decided.meta, revisionId);

/** The approval request: the refusal that carries its id. */
async function requestApproval(
  call: IndexedCall,
  revisionId: string | null,
  { args, source, reason }: Approve,
): Promise<ToolCallAnswer> {
  const { env, req } = call;
  const approval = await createApproval(env.DB, {
    workspaceUid: req.workspaceUid,
    toolUid: call.found.tool.uid,
    toolName: call.scope.toolName,
    revisionId,
    source,
    reason,
    arguments: args,
    publicArguments: req.arguments,
    keyId: req.caller.keyId,
    actor: req.caller.actor,
    requestId: req.requestId,
    now: Date.now(),
  });
  // A hook's approval request is in its own record already.
  if (source === "risk") {
    call.recorder.record(
      runRecord(call.scope, {
        stage: "pipeline",
        channel: "active",
        outcome: "refused",
        code: "approval_required",
        revisionId,
        details: { reason: "risk", message: reason },
      }),
    );
  }
  return result(refusal({ code: "approval_required", message: reason, approvalId: approval.id }));
}

/** 5) Plugins' tool.execute.after, then `after`, public output validation and projection. */
async function after(call: IndexedCall, dispatched: Dispatched): Promise<ToolCallAnswer> {
  const { revision, shadow } = dispatched;
  const plugged = await pluginsAfter(
    pluginScope(call),
    await call.plugins,
    dispatched.args,
    dispatched.result,
  );
  call.recorder.recordAll(plugged.records);
  const upstream = plugged.result;
  if (upstream.isError === true) {
    // Upstream tool errors stay the upstream's; `after` does not run.
    if (revision?.stages.includes("after")) {
      call.recorder.record(
        runRecord(call.scope, {
          stage: "after",
          channel: "active",
          outcome: "passed",
          code: "upstream_error",
          revisionId: revision.id,
        }),
      );
    }
    shadowCall(call, shadow);
    return result(upstream);
  }
  const input = afterInput(upstream);
  const step = await runAfter(call, revision, input);
  if (step === null) {
    const answer = checkedOutput(call, revision, upstream);
    shadowCall(call, shadow, { action: "return", result: input }, input);
    return answer;
  }
  const answer = afterOutput(call, revision, upstream, step);
  shadowCall(call, shadow, comparable(step), input);
  return answer;
}
