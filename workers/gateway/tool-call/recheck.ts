// Step 4's recheck, right before a dispatch: the revision that ran is still
// the active one and the key is not revoked. Asked of the isolate's lease on
// the workspace's view (shared/lease/view.ts), so a warm isolate answers it
// without a trip to the workspace's home; a lease that no longer covers this
// moment (its clock plus the CPU the clock has not shown) is renewed first,
// with one trip. Throws LeaseUnavailable when no lease can be had;
// handleToolCall answers that closed.
import { NO_POINTERS, type Pointers } from "../../../shared/lifecycle/pointers";
import { leasedView } from "../../../shared/lease/view";
import type { ToolCallRequest } from "./call-types";
import type { GatewayEnv } from "../env";

/**
 * `kind` is `current` when the revision is still active and the key unrevoked,
 * else what moved. `catalog` is the view's catalog version, so a call decided
 * on an isolate's older copy of the catalog is told in the same check.
 */
export type DispatchRecheck = {
  kind: "current" | "revision_changed" | "key_revoked";
  pointers: Pointers;
  catalog: number;
};

export async function recheckDispatch(
  env: GatewayEnv,
  req: Pick<ToolCallRequest, "workspaceUid" | "caller">,
  target: string,
  expectedActive: string | null,
): Promise<DispatchRecheck> {
  const { view } = await leasedView(env, req.workspaceUid);
  const pointers = view.pointers[target] ?? NO_POINTERS;
  const catalog = view.catalog;
  if (view.revoked.includes(req.caller.keyId)) return { kind: "key_revoked", pointers, catalog };
  if ((pointers.active?.revisionId ?? null) !== expectedActive)
    return { kind: "revision_changed", pointers, catalog };
  return { kind: "current", pointers, catalog };
}

/**
 * A target's pointers under the lease, and whether the view was fetched after
 * `since` (the call's own view rather than one the isolate held; see PointerView).
 */
export async function leasedPointers(
  env: GatewayEnv,
  workspaceUid: string,
  target: string,
  since: number,
): Promise<{ pointers: Pointers; fresh: boolean }> {
  const { view, sentAt } = await leasedView(env, workspaceUid);
  return { pointers: view.pointers[target] ?? NO_POINTERS, fresh: sentAt >= since };
}
