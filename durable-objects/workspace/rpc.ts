// The WorkspaceObject's one contract: every RPC method, its request and its
// answer. Both Workers and `shared/` type their stub with `WorkspaceRpc` (via
// `WorkspaceBinding`), never through the api Worker's generated `Env`, so no
// caller depends on the class or on the Worker that hosts it.
import type { hookVersions } from "../../shared/db/schema-hooks";
import type { DeployChannel, Pointer, Pointers, SetPointerOutcome } from "../../shared/lifecycle/pointers";
import type {
  AllowanceRefusal,
  AllowanceUsage,
  QuotaCharge,
  QuotaRefusal,
} from "../../shared/lifecycle/quota";

export type { DeployChannel, Pointer, Pointers, SetPointerOutcome };

/** Where a version was saved from. */
export const CHANNELS = ["api", "cli", "web"] as const;
export type Channel = (typeof CHANNELS)[number];

/** A draft as it is stored (prepared by the api Worker before it asks the object to save it). */
export interface PreparedDraft {
  /** Stored source: Prettier's output when it parsed, otherwise exactly as sent. */
  source: string;
  /** Config as stored: JSON text of the object as sent (key order kept). */
  configJson: string;
  formatted: boolean;
  /** UTF-8 bytes of `source` plus `configJson`; what the history allowance counts. */
  bytes: number;
  /** SHA-256 over the source and the key-order-independent config; equal hash ⇒ identical save. */
  contentHash: string;
}

/** A `hook_versions` row as D1 stores it. */
export type VersionRow = typeof hookVersions.$inferSelect;

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

/** One row of the workspace file list. */
export interface TargetRow {
  target: string;
  head: Head;
  pointers: Pointers;
}

/**
 * What the hot paths recheck, as one immutable value: every target's
 * pointers, the keys revoked recently enough that an isolate may still hold
 * them resolved, and the catalog version (services, tools, review, access
 * profiles, gateway settings, secrets, config and plugin pointers). `epoch`
 * grows with every write that changes any of it.
 */
export interface WorkspaceView {
  epoch: number;
  catalog: number;
  pointers: Readonly<Record<string, Pointers>>;
  revoked: readonly string[];
}

/**
 * The view, granted for `ms` from when the object answered. The holder counts
 * `ms` from before it asked, so its lease ends no later than the object's
 * record of it; a write that changes the view returns only once every lease
 * granted before it has ended (plus a margin).
 */
export interface Lease {
  view: WorkspaceView;
  ms: number;
}

/** Every method a caller may invoke on a workspace's object, as the object answers it. */
export interface WorkspaceRpc {
  /** The target's head (`{ generation, version }` and its ETag). */
  getHead(workspaceUid: string, target: string): Promise<Head>;
  /** Head and deployment pointers in one round trip (`GET …/hook`). */
  getHookState(workspaceUid: string, target: string): Promise<{ head: Head; pointers: Pointers }>;
  /** One page of existing targets (a saved draft or a pointer) under `prefix`, after `page.after`. */
  listTargets(
    workspaceUid: string,
    prefix: string,
    page: { after: string; limit: number },
  ): Promise<TargetRow[]>;
  saveDraft(request: SaveDraftRequest): Promise<SaveDraftOutcome>;
  resetTarget(workspaceUid: string, target: string): Promise<ResetOutcome>;
  chargeCompilation(keyId: string, now: number): QuotaCharge;
  compilationUsage(keyId: string, now: number): { used: number; limit: number; resetAt: string };
  getUsage(workspaceUid: string, now: number): Promise<AllowanceUsage>;
  getPointers(target: string): Pointers;
  /** The hot paths' lease on the workspace's view (see `Lease`). */
  grantLease(): Lease;
  // Writes that change the view return once every older lease has ended.
  setPointer(
    target: string,
    channel: DeployChannel,
    revisionId: string,
    bytes: number,
    now?: number,
    generation?: number,
    codeHash?: string,
  ): Promise<SetPointerOutcome>;
  dropPointer(
    target: string,
    channel: DeployChannel,
  ): Promise<{ dropped: Pointer | null; pointers: Pointers }>;
  revokeKey(keyId: string, now?: number): Promise<void>;
  isKeyRevoked(keyId: string): boolean;
  catalogVersion(): number;
  catalogChanged(): Promise<number>;
}

/** The binding both Workers declare (`WORKSPACE`), typed by the contract rather than by the class. */
export interface WorkspaceBinding {
  WORKSPACE: DurableObjectNamespace<WorkspaceRpc & Rpc.DurableObjectBranded>;
}

/** The stub of a workspace's object, typed by this contract. */
export const workspaceObject = (env: WorkspaceBinding, workspaceUid: string) =>
  env.WORKSPACE.getByName(workspaceUid);
