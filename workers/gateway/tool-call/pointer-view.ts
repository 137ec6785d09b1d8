// The view of a tool's pointers that step 2 of tool-call.ts runs the stages
// under: the isolate's copy when it has one (no round trip), else one read for
// this call. The dispatch recheck confirms a copy, or sends the stages back
// with the current pointers.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { rememberPointers, cachedPointers } from "../caches/pointer-cache";
import type { Pointers } from "../../../shared/lifecycle/pointers";
import { answered, type Answered, type Retry } from "./call-types";
import { recheckRefusal, refuse, type IndexedCall } from "./indexed-call";

/**
 * The tool's pointers the stages run under: the isolate's copy, or read for
 * this call (`fresh`: a refusal under them needs no recheck, and a recheck
 * that finds them moved refuses instead of running the stages again).
 */
export interface PointerView {
  pointers: Pointers;
  fresh: boolean;
}

export function cachedView(call: IndexedCall): PointerView | undefined {
  const pointers = cachedPointers(call.req.workspaceUid, call.target);
  return pointers === undefined ? undefined : { pointers, fresh: false };
}

export async function readView(call: IndexedCall): Promise<PointerView> {
  const { env, req, target } = call;
  const pointers = await workspaceObject(env, req.workspaceUid).getPointers(target);
  rememberPointers(req.workspaceUid, target, pointers);
  return { pointers, fresh: true };
}

/** The pointer names a revision whose row is gone (a reset in flight): the object says what is active. */
export async function revisionGone(
  call: IndexedCall,
  view: PointerView,
  revisionId: string,
): Promise<Answered | Retry<PointerView>> {
  const { env, req, target } = call;
  const recheck = await workspaceObject(env, req.workspaceUid).recheckDispatch(
    target,
    revisionId,
    req.caller.keyId,
  );
  rememberPointers(req.workspaceUid, target, recheck.pointers);
  if (!view.fresh && !recheck.ok && recheck.code === "revision_changed") {
    return { kind: "retry", view: { pointers: recheck.pointers, fresh: true } };
  }
  return answered(refuse(call, recheckRefusal("revision_changed"), revisionId));
}
