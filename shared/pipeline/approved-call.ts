// The repeat of an approved call (tool-call.ts steps 3–4): an approval binds
// the exact active revision and the exact transformed call, so the repeat
// sends the stored call, once, under that revision, and refuses when either
// moved since.
import { callHash, checkApprovalUse, consumeApproval, getApproval } from "../approvals";
import { isJsonObject, type Json, type JsonObject } from "../json";
import { schemaFailure } from "./adapter-steps";
import {
  catalogCurrent,
  pipelineFaults,
  refuse,
  STALE_CATALOG,
  type Answer,
  type CallState,
} from "./call-state";
import { upstreamSchemas } from "./catalog";
import { dispatchAndFinish } from "./finish";
import { rememberPointers } from "./pointer-cache";
import { parsedJson, type RefusalMeta } from "./results";
import { loadRevision } from "./revision-cache";
import { scheduleShadow, type ActiveTrace } from "./shadow";
import { validatorKeys } from "./stages";

/** A repeated call with an approval id: the stored transformed call, once, under the bound revision. */
export async function runApprovedCall(state: CallState, approvalId: string): Promise<Answer> {
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
