// The view of a tool's pointers that step 2 of tool-call.ts runs the stages
// under: the isolate's lease on the workspace's view (no trip home while it
// holds). The dispatch recheck confirms it, or sends the stages back with the
// current pointers.
import type { Pointers } from "../../../shared/lifecycle/pointers";
import { answered, type Answered, type Retry } from "./call-types";
import { recheckRefusal, refuse, type IndexedCall } from "./indexed-call";
import { leasedPointers, recheckDispatch } from "./recheck";

/**
 * The tool's pointers the stages run under. `fresh`: the view was fetched for
 * this call, so a refusal under it needs no recheck and a recheck that finds
 * the pointers moved refuses instead of running the stages again.
 */
export interface PointerView {
  pointers: Pointers;
  fresh: boolean;
}

export const stagePointers = (call: IndexedCall): Promise<PointerView> =>
  leasedPointers(
    call.env,
    call.req.workspaceUid,
    call.target,
    call.req.receivedAt ?? Number.POSITIVE_INFINITY,
  );

/** The pointer names a revision whose row is gone (a reset in flight): the lease says what is active. */
export async function revisionGone(
  call: IndexedCall,
  view: PointerView,
  revisionId: string,
): Promise<Answered | Retry<PointerView>> {
  const recheck = await recheckDispatch(call.env, call.req, call.target, revisionId);
  if (!view.fresh && recheck.kind === "revision_changed") {
    return { kind: "retry", view: { pointers: recheck.pointers, fresh: true } };
  }
  return answered(refuse(call, recheckRefusal("revision_changed"), revisionId));
}
