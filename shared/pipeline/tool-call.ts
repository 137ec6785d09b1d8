// The tool-call path (seed 000 "Execution order"; DESIGN §1 "Order on the
// tool-call path"), in its order:
//   1) access: the key's access profile, review state, live tool, upstream
//      authorization — decided before any hook runs, and no hook can weaken it;
//   2) public arguments against the public input schema, then the active `before`;
//   3) transformed arguments against the upstream schema and the size bound;
//      an approval binds the exact active revision and the exact transformed call;
//   4) one WorkspaceObject round trip (active revision unchanged, key not revoked),
//      upstream authorization, exactly one upstream `tools/call`;
//   5) `after`, public output validation, response projection.
// Plugins (seed 003, fail open; DESIGN §7 "Order with plugins") run between the
// adapter's `before` and the upstream-schema check (`tool.execute.before`: a
// plugin can change the call but not smuggle an invalid one past that check,
// and an approval's hash covers the call they leave), and right after the
// upstream answers (`tool.execute.after`, on upstream tool errors too), before
// the adapter's `after`.
// Every tool-level refusal is a CallToolResult with `_meta["rayrun/error"]`.
// Shadow revisions run after the response (shadow.ts); run records are written
// after the response (records.ts).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { decideAccess } from "../access";
import { callHash, checkApprovalUse, consumeApproval, createApproval, getApproval } from "../approvals";
import { isJsonObject, utf8Bytes, type Json, type JsonObject } from "../json";
import type { Pointers } from "../lifecycle/pointers";
import { toolTarget } from "../lifecycle/target";
import { LIMITS } from "../limits";
import type { RunRecord } from "../logs";
import { warmAdapter } from "../sandbox";
import { DEFAULT_TOOL_RISK } from "../access";
import { getValidator } from "../hooks/validator";
import { fileTarget } from "../lifecycle/target";
import {
  callPlugins,
  offeredPluginTools,
  pluginsAfter,
  pluginsBefore,
  runPluginTool,
  type DeployedPlugin,
} from "../plugins/tools";
import { openSecret } from "../secrets";
import { schemaFailure, type StepRun } from "./adapter-steps";
import { findUnavailableTool, upstreamSchemas, type CatalogTool } from "./catalog";
import { workspaceCatalog, type WorkspaceCatalog } from "./catalog-cache";
import { dispatchToolCall } from "./dispatch";
import { cachedPointers, rememberPointers } from "./pointer-cache";
import { deferRecords, runRecord, stepRecord, type RecordScope } from "./records";
import { afterInput, parsedJson, projectResult, refusal, replaceResult, type RefusalMeta } from "./results";
import { loadRevision, type LoadedRevision } from "./revision-cache";
import { scheduleShadow, type ActiveTrace } from "./shadow";
import { comparable, failureMeta, runAfter, runBefore, validatorKeys } from "./stages";

export type GatewayEnv = Pick<Env, "DB" | "CODE" | "WORKSPACE" | "RAYRUN_BOOTSTRAP_KEY">;

/** Largest transformed call sent upstream, in UTF-8 bytes of its arguments' JSON. */
export const UPSTREAM_ARGUMENTS_BYTES = LIMITS.upstreamArgumentsBytes;

export interface Caller {
  keyId: string;
  actor: string;
  /** The access profile the key names ("default" when none). */
  profile: string;
}

export interface ToolCallRequest {
  workspaceUid: string;
  name: string;
  arguments: JsonObject;
  /** `params._meta["rayrun/approvalId"]` of a repeated, approved call. */
  approvalId: string | null;
  caller: Caller;
  requestId: string;
}

export type ToolCallAnswer =
  | { kind: "result"; result: CallToolResult }
  | { kind: "unknown_tool" }
  /** The upstream answered with a JSON-RPC error: the client gets it as the upstream's. */
  | { kind: "upstream_error"; code: number; message: string; data?: unknown };

/** Test seams; never set in production. */
export const pipelineFaults: { beforeDispatch?: (request: ToolCallRequest) => Promise<void> | void } = {};

/** The call ran on an isolate copy of the catalog that turned out stale: run it again on a fresh read. */
type StaleCatalog = { kind: "stale_catalog" };
type Answer = ToolCallAnswer | StaleCatalog;
const STALE_CATALOG: StaleCatalog = { kind: "stale_catalog" };

interface CallState {
  env: GatewayEnv;
  catalog: WorkspaceCatalog;
  ctx: Pick<ExecutionContext, "waitUntil">;
  req: ToolCallRequest;
  calledAt: string;
  found: CatalogTool;
  target: string;
  scope: RecordScope;
  records: RunRecord[];
  bearer: string | null;
  /** The workspace's active plugins, read beside the call's first steps (never rejects). */
  plugins: Promise<DeployedPlugin[]>;
}

const result = (r: CallToolResult): ToolCallAnswer => ({ kind: "result", result: r });

function refuse(state: CallState, meta: RefusalMeta, revisionId: string | null): ToolCallAnswer {
  state.records.push(
    runRecord(state.scope, {
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

const pluginScope = (state: CallState) => ({
  env: state.env,
  workspaceUid: state.req.workspaceUid,
  requestId: state.req.requestId,
  toolName: state.scope.toolName,
  toolUid: state.found.tool.uid,
});

function recordStep(state: CallState, step: StepRun, revisionId: string | null, args: Json): void {
  if (step.ran) state.records.push(stepRecord(state.scope, step, "active", revisionId, { arguments: args }));
}

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
    // Refill the active adapter's pre-warmed sandboxes once the answer is ready (builds start on a later turn).
    const activeId = cachedPointers(req.workspaceUid, target)?.active?.revisionId;
    if (activeId)
      ctx.waitUntil(
        loadRevision(env, req.workspaceUid, target, activeId).then((r) => r && warmAdapter(r.adapter.code)),
      );
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

/** Whether the call's catalog is current: read for this call, or confirmed with one round trip. */
async function catalogCurrent(state: CallState): Promise<boolean> {
  if (state.catalog.fresh) return true;
  const current = await state.env.WORKSPACE.getByName(state.req.workspaceUid).catalogVersion();
  return current === state.catalog.version;
}

/** Whether a dispatch recheck shows the call ran on a stale isolate copy of the catalog. */
const staleCatalog = (state: CallState, recheck: { catalog: number }): boolean =>
  !state.catalog.fresh && recheck.catalog !== state.catalog.version;

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
  if (service.authorizationSecret !== null) {
    state.bearer = found.secret
      ? await openSecret(
          env.RAYRUN_BOOTSTRAP_KEY,
          req.workspaceUid,
          service.authorizationSecret,
          found.secret,
        )
      : null;
    if (state.bearer === null) {
      return refuseOnCatalog(state, {
        code: "upstream_unauthorized",
        message: `The upstream of ${name} needs the workspace secret ${service.authorizationSecret}, which is not set.`,
      });
    }
  }

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
    const attempt = await attemptCall(state, pointers, fresh, access.approval);
    if (attempt.kind === "stale") {
      pointers = attempt.pointers;
      fresh = true;
      continue;
    }
    return attempt.answer;
  }
}

type Attempt = { kind: "stale"; pointers: Pointers } | { kind: "done"; answer: Answer };

async function attemptCall(
  state: CallState,
  pointers: Pointers,
  fresh: boolean,
  riskApproval: { risk: string; threshold: string; profile: string } | null,
): Promise<Attempt> {
  const { env, req, found } = state;
  const stub = env.WORKSPACE.getByName(req.workspaceUid);
  const activeId = pointers.active?.revisionId ?? null;
  const revision =
    activeId === null ? null : await loadRevision(env, req.workspaceUid, state.target, activeId);
  const publicArgs: Json = req.arguments;
  const trace: ActiveTrace = { publicArguments: publicArgs, before: null, after: null, liveResult: null };
  const done = (answer: ToolCallAnswer, shadowPointers: Pointers): Attempt => {
    scheduleShadow(state, shadowPointers, trace);
    return { kind: "done", answer };
  };

  // The pointer names a revision whose row is gone (a reset in flight): ask the object.
  if (activeId !== null && revision === null) {
    const recheck = await stub.recheckDispatch(state.target, activeId, req.caller.keyId);
    rememberPointers(req.workspaceUid, state.target, recheck.pointers);
    if (!fresh && !recheck.ok && recheck.code === "revision_changed")
      return { kind: "stale", pointers: recheck.pointers };
    return {
      kind: "done",
      answer: refuse(
        state,
        { code: "revision_changed", message: "The active revision changed during the call; retry it." },
        activeId,
      ),
    };
  }

  // 2) Public arguments, then the active revision's `before`.
  const before = await runBefore(state, revision, publicArgs);
  recordStep(state, before, activeId, publicArgs);
  trace.before = comparable(before);

  // 3) Upstream schema (checked with the step) and the size bound.
  let refusalMeta: RefusalMeta | null = null;
  /** Whether the stage's own record already says why (a hook that ran rejected or failed). */
  let recorded = false;
  let dispatchArgs: JsonObject = {};
  let approvalReason: { source: "hook" | "risk"; reason: string } | null = null;
  if (!before.ok) {
    refusalMeta = failureMeta(before);
    recorded = before.ran;
  } else if (before.outcome.action === "reject") {
    refusalMeta = { code: "rejected", reason: before.outcome.reason, message: before.outcome.message };
    recorded = true;
  } else if (before.outcome.action === "continue" || before.outcome.action === "approval") {
    let transformed = before.outcome.arguments;
    // Plugins' tool.execute.before (fail open), then the upstream schema again (fail closed).
    let pluginInvalid: RefusalMeta | null = null;
    if (isJsonObject(transformed)) {
      const plugged = await pluginsBefore(pluginScope(state), await state.plugins, transformed);
      state.records.push(...plugged.records);
      if (plugged.changed) {
        if (plugged.args === undefined) {
          pluginInvalid = {
            code: "upstream_arguments_invalid",
            message: "Plugins' tool.execute.before left no arguments to send upstream.",
          };
        } else {
          transformed = plugged.args;
          const invalid = schemaFailure(
            "upstream_arguments_invalid",
            upstreamSchemas(found.tool).inputSchema,
            transformed,
            validatorKeys(found.tool, revision).upstreamInput,
          );
          if (invalid) pluginInvalid = failureMeta(invalid);
        }
      }
    }
    const bytes = utf8Bytes(JSON.stringify(transformed ?? null));
    if (isJsonObject(transformed)) dispatchArgs = transformed;
    if (pluginInvalid !== null) {
      refusalMeta = pluginInvalid;
    } else if (!isJsonObject(transformed)) {
      refusalMeta = {
        code: "upstream_arguments_invalid",
        message: "Tool arguments sent upstream must be a JSON object.",
      };
    } else if (bytes > UPSTREAM_ARGUMENTS_BYTES) {
      refusalMeta = {
        code: "call_too_large",
        message: `The arguments sent upstream would be ${bytes} bytes; the limit is ${UPSTREAM_ARGUMENTS_BYTES}.`,
      };
    } else if (before.outcome.action === "approval") {
      approvalReason = { source: "hook", reason: before.outcome.reason };
    } else if (riskApproval !== null) {
      approvalReason = {
        source: "risk",
        reason: `Calls to ${state.scope.toolName} (risk ${riskApproval.risk}) need approval under access profile ${riskApproval.profile}.`,
      };
    }
  }

  const answerRefusal = (meta: RefusalMeta) =>
    recorded ? result(refusal(meta)) : refuse(state, meta, activeId);
  // A refusal computed with pointers read fresh for this call is answered as is.
  if (refusalMeta !== null && fresh) return done(answerRefusal(refusalMeta), pointers);

  // 4) The one round trip: the revision that ran is still active, the key is not revoked.
  await pipelineFaults.beforeDispatch?.(req);
  const recheck = await stub.recheckDispatch(state.target, activeId, req.caller.keyId);
  rememberPointers(req.workspaceUid, state.target, recheck.pointers);
  if (staleCatalog(state, recheck)) return { kind: "done", answer: STALE_CATALOG };
  if (!recheck.ok) {
    if (recheck.code === "revision_changed" && !fresh) return { kind: "stale", pointers: recheck.pointers };
    const meta: RefusalMeta =
      recheck.code === "key_revoked"
        ? { code: "key_revoked", message: "The API key has been revoked." }
        : { code: "revision_changed", message: "The active revision changed during the call; retry it." };
    return done(refuse(state, meta, activeId), recheck.pointers);
  }
  if (refusalMeta !== null) return done(answerRefusal(refusalMeta), recheck.pointers);

  if (approvalReason !== null) {
    const approval = await createApproval(env.DB, {
      workspaceUid: req.workspaceUid,
      toolUid: found.tool.uid,
      toolName: state.scope.toolName,
      revisionId: activeId,
      source: approvalReason.source,
      reason: approvalReason.reason,
      arguments: dispatchArgs,
      publicArguments: publicArgs,
      keyId: req.caller.keyId,
      actor: req.caller.actor,
      requestId: req.requestId,
      now: Date.now(),
    });
    const meta: RefusalMeta = {
      code: "approval_required",
      message: approvalReason.reason,
      approvalId: approval.id,
    };
    if (approvalReason.source === "risk") {
      state.records.push(
        runRecord(state.scope, {
          stage: "pipeline",
          channel: "active",
          outcome: "refused",
          code: "approval_required",
          revisionId: activeId,
          details: { reason: "risk", message: approvalReason.reason },
        }),
      );
    }
    return done(result(refusal(meta)), recheck.pointers);
  }

  const answer = await dispatchAndFinish(state, revision, dispatchArgs, trace);
  return done(answer, recheck.pointers);
}

/** A repeated call with an approval id: the stored transformed call, once, under the bound revision. */
async function runApprovedCall(state: CallState, approvalId: string): Promise<Answer> {
  const { env, req, found } = state;
  // Approved repeats are rare and consume their approval: confirm the catalog copy before, not after.
  if (!(await catalogCurrent(state))) return STALE_CATALOG;
  const publicArgs: Json = req.arguments;
  const row = await getApproval(env.DB, req.workspaceUid, approvalId);
  const publicHash = await callHash(found.tool.uid, publicArgs);
  const check = checkApprovalUse(row, {
    toolUid: found.tool.uid,
    keyId: req.caller.keyId,
    publicHash,
    now: Date.now(),
  });
  if (!check.ok) return refuse(state, { code: check.code, message: check.message }, row?.revisionId ?? null);
  const approval = check.row;
  const stored = parsedJson(JSON.parse(approval.arguments));
  const args: JsonObject = isJsonObject(stored) ? stored : {};
  if ((await callHash(found.tool.uid, stored)) !== approval.callHash || !isJsonObject(stored)) {
    return refuse(
      state,
      { code: "approval_mismatch", message: "The stored call does not match its approval." },
      approval.revisionId,
    );
  }
  // The upstream definition may have been reviewed since: the stored call must still fit it.
  const invalid = schemaFailure(
    "upstream_arguments_invalid",
    upstreamSchemas(found.tool).inputSchema,
    args,
    validatorKeys(found.tool, null).upstreamInput,
  );
  if (invalid) return refuse(state, { code: invalid.code, message: invalid.message }, approval.revisionId);

  const revision =
    approval.revisionId === null
      ? null
      : await loadRevision(env, req.workspaceUid, state.target, approval.revisionId);
  // Single use: the conditional UPDATE decides between concurrent repeats.
  if (!(await consumeApproval(env.DB, req.workspaceUid, approval.id, Date.now()))) {
    return refuse(
      state,
      { code: "approval_used", message: "The approval was already used for one call." },
      approval.revisionId,
    );
  }
  await pipelineFaults.beforeDispatch?.(req);
  const recheck = await env.WORKSPACE.getByName(req.workspaceUid).recheckDispatch(
    state.target,
    approval.revisionId,
    req.caller.keyId,
  );
  rememberPointers(req.workspaceUid, state.target, recheck.pointers);
  if (!recheck.ok || (approval.revisionId !== null && revision === null)) {
    const meta: RefusalMeta =
      !recheck.ok && recheck.code === "key_revoked"
        ? { code: "key_revoked", message: "The API key has been revoked." }
        : {
            code: "revision_changed",
            reason: "approval_bound_revision",
            message:
              "The approval was given under an adapter revision that is no longer active; request a new approval.",
          };
    return refuse(state, meta, approval.revisionId);
  }
  const trace: ActiveTrace = { publicArguments: publicArgs, before: null, after: null, liveResult: null };
  const answer = await dispatchAndFinish(state, revision, args, trace);
  scheduleShadow(state, recheck.pointers, trace);
  return answer;
}

/** Step 4's dispatch and step 5. */
async function dispatchAndFinish(
  state: CallState,
  revision: LoadedRevision | null,
  args: JsonObject,
  trace: ActiveTrace,
): Promise<ToolCallAnswer> {
  const { found } = state;
  const dispatched = await dispatchToolCall(found.service.url, found.tool.upstreamName, args, state.bearer);
  if (dispatched.kind === "unavailable") {
    return refuse(state, { code: "upstream_unavailable", message: dispatched.message }, revision?.id ?? null);
  }
  if (dispatched.kind === "rpc_error") {
    const { kind: _kind, ...error } = dispatched;
    return { kind: "upstream_error", ...error };
  }
  // Plugins' tool.execute.after (fail open) sees every upstream result, errors included.
  const plugged = await pluginsAfter(pluginScope(state), await state.plugins, args, dispatched.result);
  state.records.push(...plugged.records);
  const upstream = plugged.result;
  if (upstream.isError === true) {
    // Upstream tool errors stay the upstream's; `after` does not run.
    if (revision?.stages.includes("after")) {
      state.records.push(
        runRecord(state.scope, {
          stage: "after",
          channel: "active",
          outcome: "passed",
          code: "upstream_error",
          revisionId: revision.id,
        }),
      );
    }
    return result(upstream);
  }

  // 5) after, public output validation, projection.
  const input = afterInput(upstream);
  trace.liveResult = input;
  const after = await runAfter(state, revision, input);
  let final: CallToolResult;
  if (after === null) {
    trace.after = { action: "return", result: input };
    const contract = revision?.publicContract?.outputSchema;
    const schema = isJsonObject(contract) ? contract : upstreamSchemas(found.tool).outputSchema;
    const invalid =
      upstream.structuredContent === undefined
        ? null
        : schemaFailure(
            "public_output_invalid",
            schema,
            parsedJson(upstream.structuredContent),
            validatorKeys(found.tool, revision).publicOutput,
          );
    if (invalid) return refuse(state, failureMeta(invalid), revision?.id ?? null);
    final = upstream;
  } else {
    state.records.push(stepRecord(state.scope, after, "active", revision?.id ?? null));
    trace.after = comparable(after);
    if (!after.ok) return result(refusal(failureMeta(after)));
    if (after.outcome.action === "fail") {
      return result(
        refusal({ code: "failed", reason: after.outcome.reason, message: after.outcome.message }),
      );
    }
    const replaced = after.outcome.action === "return" ? replaceResult(upstream, after.outcome.result) : null;
    if (replaced === null) {
      return result(
        refusal({
          code: "hook_invalid_return",
          message: "after returned content that is not a list of MCP content blocks.",
        }),
      );
    }
    final = replaced;
  }
  return result(projectResult(final, found.projection));
}

/**
 * `tools/call` of a plugin tool (seed 003 `tool`; DESIGN §7 "Files and
 * plugins"), or null when `req.name` is no plugin tool: access by id, the
 * arguments against its `parameters`, plugins' tool.execute.before (the result
 * checked against `parameters` again), `execute` in a fresh sandbox that took
 * it from its own call of `tool()`, then tool.execute.after. A failing
 * `execute` is a tool error (`plugin_tool_failed`).
 */
async function handlePluginToolCall(
  env: GatewayEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  req: ToolCallRequest,
  catalog: WorkspaceCatalog,
): Promise<ToolCallAnswer | null> {
  const plugins = await callPlugins(env, req.workspaceUid, catalog.version);
  if (!plugins.some((p) => p.hooks.includes("tool"))) return null;
  const indexed = new Set(catalog.tools.map(({ tool }) => tool.publicName ?? tool.upstreamName));
  const offered = (await offeredPluginTools(env, req.workspaceUid, plugins, indexed)).get(req.name);
  if (offered === undefined) return null;
  const { def, plugin } = offered;
  const target = fileTarget(plugin.path);
  const records: RunRecord[] = [];
  const record = (outcome: RunRecord["outcome"], code: string | null, message: string, durationMs = 0) =>
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
      durationMs,
      fuelUsed: 0,
      shadowDiffered: null,
      plugin: plugin.name,
      at: new Date().toISOString(),
      details: { message },
    });
  const refuseWith = (meta: RefusalMeta, outcome: RunRecord["outcome"] = "refused"): ToolCallAnswer => {
    record(outcome, meta.code, meta.message);
    return result(refusal(meta));
  };
  try {
    const access = decideAccess(
      { uid: def.id, publicName: def.id, risk: DEFAULT_TOOL_RISK },
      catalog.workspace,
      catalog.key,
      req.caller.profile,
    );
    if (!access.ok) return refuseWith({ code: access.code, reason: access.reason, message: access.message });
    if (access.approval !== null) {
      return refuseWith({
        code: "access_blocked",
        reason: "approval_unsupported",
        message: `Plugin tool ${def.id} needs approval under access profile ${access.approval.profile}; plugin tools cannot be approved.`,
      });
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
    const scope = {
      env,
      workspaceUid: req.workspaceUid,
      requestId: req.requestId,
      toolName: def.id,
    };
    const plugged = await pluginsBefore(scope, plugins, req.arguments);
    records.push(...plugged.records);
    const args = plugged.args;
    if (!isJsonObject(args ?? null) || (plugged.changed && !validator.validate(args ?? null).ok)) {
      return refuseWith({
        code: "arguments_invalid",
        message: `Plugins' tool.execute.before left arguments that do not match the parameters of ${def.id}.`,
      });
    }
    const callArgs = args as JsonObject;
    // The key is not revoked and the plugin's revision is still the active one.
    const recheck = await env.WORKSPACE.getByName(req.workspaceUid).recheckDispatch(
      target,
      plugin.revisionId,
      req.caller.keyId,
    );
    if (!recheck.ok) {
      return refuseWith(
        recheck.code === "key_revoked"
          ? { code: "key_revoked", message: "The API key has been revoked." }
          : { code: "revision_changed", message: "The plugin changed during the call; retry it." },
      );
    }
    const ran = await runPluginTool(plugin, def.id, callArgs, {
      requestId: req.requestId,
      workspaceUid: req.workspaceUid,
      calledAt: new Date().toISOString(),
    });
    if (!ran.ok) {
      record("error", "plugin_tool_failed", `${ran.code}: ${ran.message}`, ran.durationMs);
      return result(
        refusal({
          code: "plugin_tool_failed",
          reason: ran.code,
          message: `Plugin tool ${def.id} failed: ${ran.message}`,
        }),
      );
    }
    record("return", null, `plugin tool ${def.id} ran`);
    const after = await pluginsAfter(scope, plugins, callArgs, ran.result);
    records.push(...after.records);
    return result(after.result);
  } finally {
    deferRecords(ctx, env, { workspaceUid: req.workspaceUid, payloadCapture: false }, records);
  }
}
