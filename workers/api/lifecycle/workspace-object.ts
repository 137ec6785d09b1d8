// The WorkspaceObject's RPC vocabulary (requests and outcomes), shared by the
// object and the routes that call it.
import type { Channel, PreparedDraft } from "./draft";
import type { Pointer, Pointers } from "../../../shared/lifecycle/pointers";
import type { AllowanceRefusal, QuotaRefusal } from "../../../shared/lifecycle/quota";
import type { VersionRow } from "./versions";

export interface Head {
  generation: number;
  version: number;
  etag: string;
  contentHash: string;
}

export interface SaveDraftRequest {
  workspaceUid: string;
  target: string;
  /** Entity tags from `If-Match` (already parsed, quoted). */
  ifMatch: readonly string[];
  draft: PreparedDraft;
  actor: string;
  keyId: string;
  channel: Channel;
  note: string | null;
  /** The version a restore copies, null for an ordinary save. */
  restoredFrom: number | null;
  /** Caller's clock (Date.now()); the object may override it (tests cross hours). */
  now: number;
}

export type SaveDraftOutcome =
  | { kind: "saved"; head: Head; row: VersionRow }
  | { kind: "noop"; head: Head }
  | { kind: "stale"; head: Head }
  | ({ kind: "rate_limited" } & QuotaRefusal)
  | ({ kind: "allowance_exceeded" } & AllowanceRefusal);

export interface ResetOutcome {
  /** The generation the target now has; delete `hook_versions` rows below it. */
  generation: number;
  previous: { generation: number; version: number };
  head: Head;
  historyBytesReleased: number;
  /** Pointers the reset dropped (their revisions are the caller's to delete). */
  droppedPointers: Pointers;
  deployedCodeBytesReleased: number;
}

export type { Pointer, Pointers };
