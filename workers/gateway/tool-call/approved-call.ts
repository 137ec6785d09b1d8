// Steps 2–4 of an approved repeat of an indexed tool's call (tool-call.ts
// runs them in its order). An approval binds the exact active revision and the
// exact transformed call, so the repeat runs no hook: it sends the stored
// call, once, under that revision, and refuses when either moved since. The
// approval is checked and spent in one conditional UPDATE (one trip home).
import { callHash, claimApproval } from "../../../shared/approvals";
import { isJsonObject, type JsonObject } from "../../../shared/json";
import { schemaFailure } from "../../../shared/adapter/steps";
import { upstreamSchemas } from "../../../shared/services/catalog";
import { parsedJson, type RefusalMeta } from "../../../shared/mcp/tool-results";
import { recheckDispatch } from "./recheck";
import { loadRevision } from "../caches/revision-cache";
import {
  answered,
  pipelineFaults,
  STALE_CATALOG,
  type Answered,
  type Next,
  type Refuse,
  type Send,
} from "./call-types";
import { sendUpstream } from "./dispatch";
import { catalogCurrent, refuse, type Dispatched, type Granted, type IndexedCall } from "./indexed-call";
import { validatorKeys } from "./stages";

/** The call an approval stored, and the revision it binds. */
export interface StoredCall {
  approval: { id: string; revisionId: string | null };
  args: JsonObject;
}

/** 2) The stored call of the approval, when this key may repeat this exact public call with it. */
export async function storedCall(call: IndexedCall): Promise<Next<StoredCall> | Answered> {
  const { env, req, found } = call;
  // Approved repeats are rare and consume their approval: confirm the catalog copy before, not after.
  if (!(await catalogCurrent(call))) return answered(STALE_CATALOG);
  const use = {
    toolUid: found.tool.uid,
    keyId: req.caller.keyId,
    publicHash: await callHash(found.tool.uid, req.arguments),
    now: Date.now(),
  };
  // Checked and spent at once (single use): whatever happens after, this approval serves no other call.
  const check = await claimApproval(env.DB, req.workspaceUid, req.approvalId ?? "", use);
  if (!check.ok) {
    return answered(
      refuse(
        call,
        { code: check.error.code, message: check.error.message },
        check.error.row?.revisionId ?? null,
      ),
    );
  }
  const approval = check.value;
  const stored = parsedJson(JSON.parse(approval.arguments));
  if ((await callHash(found.tool.uid, stored)) !== approval.callHash || !isJsonObject(stored)) {
    const meta = { code: "approval_mismatch", message: "The stored call does not match its approval." };
    return answered(refuse(call, meta, approval.revisionId));
  }
  return { kind: "next", approval: { id: approval.id, revisionId: approval.revisionId }, args: stored };
}

/** 3) The upstream definition may have been reviewed since: the stored call must still fit it. */
export function checkStoredCall(call: IndexedCall, _granted: Granted, stored: StoredCall): Send | Refuse {
  const invalid = schemaFailure(
    "upstream_arguments_invalid",
    upstreamSchemas(call.found.tool).inputSchema,
    stored.args,
    validatorKeys(call.found.tool, null).upstreamInput,
  );
  if (invalid)
    return { kind: "refuse", meta: { code: invalid.code, message: invalid.message }, recorded: false };
  return { kind: "send", args: stored.args };
}

/** 4) The recheck under the bound revision (the approval was spent in step 2), then the one dispatch. */
export async function dispatchApproved(
  call: IndexedCall,
  granted: Granted,
  stored: StoredCall,
  decided: Send | Refuse,
): Promise<Next<Dispatched> | Answered> {
  const { env, req, target } = call;
  const { approval } = stored;
  if (decided.kind === "refuse") return answered(refuse(call, decided.meta, approval.revisionId));
  const revision =
    approval.revisionId === null
      ? null
      : await loadRevision(env, req.workspaceUid, target, approval.revisionId);
  await pipelineFaults.beforeDispatch?.(req);
  const recheck = await recheckDispatch(env, req, target, approval.revisionId);
  if (recheck.kind !== "current" || (approval.revisionId !== null && revision === null)) {
    const meta: RefusalMeta =
      recheck.kind === "key_revoked"
        ? { code: "key_revoked", message: "The API key has been revoked." }
        : {
            code: "revision_changed",
            reason: "approval_bound_revision",
            message:
              "The approval was given under an adapter revision that is no longer active; request a new approval.",
          };
    return answered(refuse(call, meta, approval.revisionId));
  }
  return await sendUpstream(call, granted.bearer, revision, decided.args, {
    pointers: recheck.pointers,
    before: null,
  });
}
