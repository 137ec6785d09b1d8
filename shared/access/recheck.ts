// The WorkspaceObject's answer to the gateway's one round trip before dispatch
// (DESIGN §7 "Lifecycle details": revision recheck and key revocation together).
import type { Pointers } from "../lifecycle/pointers";

export type DispatchRecheck =
  | { ok: true; pointers: Pointers }
  | { ok: false; code: "revision_changed" | "key_revoked"; pointers: Pointers };

/** What `tools/list` needs from the object in one round trip. */
export interface DiscoveryView {
  revoked: boolean;
  /** Pointers of every target that has one, by target. */
  pointers: Record<string, Pointers>;
}
