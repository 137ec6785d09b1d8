// Deployment pointers: which revision serves a target live (active) and which
// runs beside it (shadow). The WorkspaceObject is their authority.
import type { AllowanceRefusal } from "./quota";

export const DEPLOY_CHANNELS = ["active", "shadow"] as const;
export type DeployChannel = (typeof DEPLOY_CHANNELS)[number];

export interface Pointer {
  revisionId: string;
  /** Compiled code bytes of the revision, counted against the deployed-code allowance. */
  bytes: number;
  /** ISO-8601 UTC. */
  setAt: string;
  /**
   * SHA-256 of the revision's compiled code, which names its R2 object: a
   * cold isolate fetches the code beside the revision's row instead of after
   * it. Absent on pointers set before it was recorded.
   */
  codeHash?: string;
}

export interface Pointers {
  active: Pointer | null;
  shadow: Pointer | null;
}

/** A target with no deployment. */
export const NO_POINTERS: Pointers = Object.freeze({ active: null, shadow: null });

export type SetPointerOutcome =
  | { kind: "set"; pointers: Pointers; previous: Pointer | null; deployedCodeBytes: number }
  | { kind: "allowance_exceeded"; refusal: AllowanceRefusal }
  /** The target was reset after the caller read its head: the revision belongs to a discarded history. */
  | { kind: "reset"; generation: number };
