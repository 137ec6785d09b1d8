// Steps 2)–4) of a call without an approval id (tool-call.ts has the order),
// under one view of the tool's pointers: the isolate's copy, or one read for
// this call. A copy that turns out stale comes back as `stale` with the
// current pointers, and runCall re-runs the stages once with them, so a call
// never dispatches under a revision that is no longer active.
import { createApproval } from "../approvals";
import { isJsonObject, utf8Bytes, type Json, type JsonObject } from "../json";
import type { Pointers } from "../lifecycle/pointers";
import { LIMITS } from "../limits";
import { pluginsBefore } from "../plugins/execute-hooks";
import { schemaFailure, type StepRun } from "./adapter-steps";
import {
  pipelineFaults,
  pluginScope,
  refuse,
  result,
  STALE_CATALOG,
  type Answer,
  type CallState,
  type ToolCallAnswer,
} from "./call-state";
import { upstreamSchemas } from "./catalog";
import { dispatchAndFinish } from "./finish";
import { rememberPointers } from "./pointer-cache";
import { runRecord, stepRecord } from "./records";
import { refusal, type RefusalMeta } from "./results";
import { loadRevision } from "./revision-cache";
import { scheduleShadow, type ActiveTrace } from "./shadow";
import { comparable, failureMeta, runBefore, validatorKeys } from "./stages";

/** Largest transformed call sent upstream, in UTF-8 bytes of its arguments' JSON. */
export const UPSTREAM_ARGUMENTS_BYTES = LIMITS.upstreamArgumentsBytes;

function recordStep(state: CallState, step: StepRun, revisionId: string | null, args: Json): void {
  if (step.ran) state.records.push(stepRecord(state.scope, step, "active", revisionId, { arguments: args }));
}

/** Whether a dispatch recheck shows the call ran on a stale isolate copy of the catalog. */
const staleCatalog = (state: CallState, recheck: { catalog: number }): boolean =>
  !state.catalog.fresh && recheck.catalog !== state.catalog.version;

type Attempt = { kind: "stale"; pointers: Pointers } | { kind: "done"; answer: Answer };

export async function attemptCall(
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
