// The WorkspaceObject's answer to the gateway's one round trip before dispatch:
// the revision recheck and the key's revocation, together.
import type { Pointers } from "../../../shared/lifecycle/pointers";

/**
 * `catalog` is the workspace's catalog version: bumped after every change of
 * what the gateway reads about tools (services, tools, review, access
 * profiles, gateway settings, secrets), so an isolate's cached catalog can be
 * checked in the same round trip.
 */
export type DispatchRecheck =
  | { ok: true; pointers: Pointers; catalog: number }
  | { ok: false; code: "revision_changed" | "key_revoked"; pointers: Pointers; catalog: number };

/** What the LLM proxy needs from the object in one round trip per call. */
export interface LlmCallView {
  revoked: boolean;
  /** The request hook file's pointers (null: no hook runs on this call). */
  hook: Pointers | null;
  /** The catalog version the isolate's plugin list is kept under. */
  catalog: number;
}

/** What `tools/list` needs from the object in one round trip. */
export interface DiscoveryView {
  revoked: boolean;
  /** Pointers of every target that has one, by target. */
  pointers: Record<string, Pointers>;
  catalog: number;
}
