import { DurableObject } from "cloudflare:workers";
import { LIMITS } from "../../shared/limits";
import type { Pointer } from "../../shared/lifecycle/pointers";
import {
  type AllowanceUsage,
  hourWindow,
  type QuotaCharge,
  retryAfterSeconds,
} from "../../shared/lifecycle/quota";
import { KNOBS } from "../../shared/knobs";
import { err, ok } from "../../shared/result";
import { draftEtag, emptyContentHash } from "./head";
import { insertVersion, storedHeads } from "./history";
import { LeaseBook, realClock } from "./lease";
import { Mutex } from "./mutex";
import type {
  DeployChannel,
  Head,
  Lease,
  Pointers,
  ResetOutcome,
  SaveDraftOutcome,
  SaveDraftRequest,
  SetPointerOutcome,
  TargetRow,
  WorkspaceRpc,
  WorkspaceView,
} from "./rpc";
import { type StoredHeadRow, WorkspaceStorage } from "./storage";

const SAVES_BUCKET = "draft_saves";
const compileBucket = (keyId: string) => `compile:${keyId}`;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One per workspace (`env.WORKSPACE.getByName(workspaceUid)`). Holds the hot,
 * strongly consistent state: draft heads (ETags), hourly quota windows, byte
 * allowances and active/shadow pointers. D1 stays the authority for history:
 * heads and history bytes are rebuilt from `hook_versions` when the object
 * (re)starts and whenever an insert finds its version number taken.
 */
/** The bindings the object itself uses. */
export interface WorkspaceObjectEnv {
  DB: D1Database;
  /** Lease length in ms for test runs that want short ones; KNOBS.leaseMs when absent. */
  LEASE_MS?: string;
  /** Test-only, never deployed: "1" lets writes return without waiting out older leases (see LeaseBook). */
  SIM_UNSAFE_SKIP_LEASE_WAIT?: string;
}

export class WorkspaceObject extends DurableObject<WorkspaceObjectEnv> implements WorkspaceRpc {
  readonly #state: WorkspaceStorage;
  /** Serializes saves and resets across their awaited D1 calls. */
  readonly #mutex = new Mutex();
  #reconciled: Promise<void> | null = null;
  #emptyHash = "";

  /**
   * The object's clock: maps the caller's `now` to the time used for
   * quota windows and version timestamps. Tests replace it with `runInDurableObject`.
   */
  clock: (callerNow: number) => number = (callerNow) => callerNow;

  /** Test seams; never set in production. */
  faults: {
    afterVersionInsert?: () => Promise<void> | void;
  } = {};

  readonly #leases: LeaseBook;

  constructor(ctx: DurableObjectState, env: WorkspaceObjectEnv) {
    super(ctx, env);
    this.#state = new WorkspaceStorage(ctx.storage.sql);
    const leaseMs = Number(env.LEASE_MS ?? "");
    this.#leases = new LeaseBook(
      this.#state,
      leaseMs > 0 ? leaseMs : KNOBS.leaseMs,
      realClock,
      env.SIM_UNSAFE_SKIP_LEASE_WAIT === "1",
    );
  }

  /** The target's head (`{ generation, version }` and its ETag). */
  async getHead(workspaceUid: string, target: string): Promise<Head> {
    await this.#ready(workspaceUid);
    return this.#view(this.#head(target));
  }

  /** Head and deployment pointers in one round trip (`GET …/hook`). */
  async getHookState(workspaceUid: string, target: string): Promise<{ head: Head; pointers: Pointers }> {
    await this.#ready(workspaceUid);
    return { head: this.#view(this.#head(target)), pointers: this.#state.pointers(target) };
  }

  /**
   * Head and pointers of every existing target (a saved draft or a pointer)
   * whose name starts with `prefix`, in target order after `after` (exclusive):
   * one page of the workspace file list.
   */
  async listTargets(
    workspaceUid: string,
    prefix: string,
    page: { after: string; limit: number },
  ): Promise<TargetRow[]> {
    await this.#ready(workspaceUid);
    const after = page.after < prefix ? prefix : page.after;
    return this.#state.targetsWithPrefix(prefix, after, page.limit).map((target) => ({
      target,
      head: this.#view(this.#head(target)),
      pointers: this.#state.pointers(target),
    }));
  }

  /**
   * Saves a draft: If-Match against the head, identical content is a no-op, then the
   * hourly save quota and the history allowance, then the version row in D1, then
   * the head. Serialized per workspace.
   */
  saveDraft(request: SaveDraftRequest): Promise<SaveDraftOutcome> {
    return this.#mutex.run(async () => {
      const { workspaceUid, target, draft } = request;
      await this.#ready(workspaceUid);
      const now = this.clock(request.now);
      const head = this.#head(target);
      if (!request.ifMatch.includes(draftEtag(head))) return { kind: "stale", head: this.#view(head) };
      if (draft.contentHash === head.contentHash) return { kind: "noop", head: this.#view(head) };

      const window = hourWindow(now);
      const used = this.#state.quotaUsed(SAVES_BUCKET, window.start);
      if (used >= LIMITS.draftSavesPerHour) {
        return {
          kind: "rate_limited",
          quota: "draftSaves",
          limit: LIMITS.draftSavesPerHour,
          used,
          resetAt: iso(window.resetAt),
          retryAfterSeconds: retryAfterSeconds(window.resetAt, now),
        };
      }
      const historyUsed = this.#state.historyBytes();
      if (historyUsed + draft.bytes > LIMITS.draftHistoryBytesPerWorkspace) {
        return {
          kind: "allowance_exceeded",
          allowance: "draftHistoryBytes",
          limit: LIMITS.draftHistoryBytesPerWorkspace,
          used: historyUsed,
          requested: draft.bytes,
        };
      }

      // Charged before the insert: an eviction past this point can over-count one
      // save but never lets one through uncounted.
      this.#state.setQuotaUsed(SAVES_BUCKET, window.start, used + 1);
      const refund = () =>
        this.#state.setQuotaUsed(
          SAVES_BUCKET,
          window.start,
          Math.max(0, this.#state.quotaUsed(SAVES_BUCKET, window.start) - 1),
        );
      let row;
      try {
        row = await insertVersion(this.env.DB, {
          workspaceUid,
          target,
          generation: head.generation,
          number: head.version + 1,
          draft,
          actor: request.actor,
          keyId: request.keyId,
          channel: request.channel,
          note: request.note,
          restoredFrom: request.restoredFrom,
          createdAt: iso(now),
        });
      } catch (error) {
        refund();
        throw error;
      }
      if (row === null) {
        // The number is taken: an earlier save reached D1 but not this head
        // (the object was evicted in between). D1 decides; this ETag is stale.
        refund();
        await this.#reconcileTarget(workspaceUid, target);
        return { kind: "stale", head: this.#view(this.#head(target)) };
      }
      await this.faults.afterVersionInsert?.();
      const next: StoredHeadRow = {
        target,
        generation: head.generation,
        version: row.number,
        contentHash: draft.contentHash,
        historyBytes: head.historyBytes + draft.bytes,
      };
      this.#state.putHead(next);
      return { kind: "saved", head: this.#view(next), row };
    });
  }

  /**
   * Counts one compilation attempt for an API key (or browser user) in the current
   * hour; refused attempts are not counted again.
   */
  chargeCompilation(keyId: string, now: number): QuotaCharge {
    const at = this.clock(now);
    const window = hourWindow(at);
    const bucket = compileBucket(keyId);
    const used = this.#state.quotaUsed(bucket, window.start);
    if (used >= LIMITS.compilationsPerHour) {
      return err({
        quota: "compilations",
        limit: LIMITS.compilationsPerHour,
        used,
        resetAt: iso(window.resetAt),
        retryAfterSeconds: retryAfterSeconds(window.resetAt, at),
      });
    }
    this.#state.setQuotaUsed(bucket, window.start, used + 1);
    return ok({
      quota: "compilations",
      limit: LIMITS.compilationsPerHour,
      used: used + 1,
      resetAt: iso(window.resetAt),
    });
  }

  /** The hour's compilations of one key or user, without counting one (`GET …/quotas`). */
  compilationUsage(keyId: string, now: number): { used: number; limit: number; resetAt: string } {
    const window = hourWindow(this.clock(now));
    return {
      used: this.#state.quotaUsed(compileBucket(keyId), window.start),
      limit: LIMITS.compilationsPerHour,
      resetAt: iso(window.resetAt),
    };
  }

  /** Current pointers of a target. */
  getPointers(target: string): Pointers {
    return this.#state.pointers(target);
  }

  /**
   * Points `channel` of `target` at a revision of `bytes` compiled code, if the
   * workspace's active + shadow code (distinct revisions) stays within its allowance
   * and, when `generation` is given, the target is still at the generation the
   * revision was made in (a reset that landed meanwhile wins: its history is gone).
   */
  async setPointer(
    target: string,
    channel: DeployChannel,
    revisionId: string,
    bytes: number,
    now: number = Date.now(),
    generation?: number,
    codeHash?: string,
  ): Promise<SetPointerOutcome> {
    const current = this.#head(target).generation;
    if (generation !== undefined && generation !== current) {
      return { kind: "reset", generation: current };
    }
    const previous = this.#state.pointers(target)[channel];
    const pointer: Pointer = {
      revisionId,
      bytes,
      setAt: iso(this.clock(now)),
      ...(codeHash === undefined ? {} : { codeHash }),
    };
    const before = this.#state.deployedCodeBytes();
    const after = this.#state.deployedCodeBytes({ target, channel, pointer });
    if (after > LIMITS.deployedCodeBytesPerWorkspace && after > before) {
      return {
        kind: "allowance_exceeded",
        refusal: {
          allowance: "deployedCodeBytes",
          limit: LIMITS.deployedCodeBytesPerWorkspace,
          used: before,
          requested: bytes,
        },
      };
    }
    this.#state.putPointer(target, channel, pointer);
    const pointers = this.#state.pointers(target);
    await this.#leases.changed();
    return { kind: "set", pointers, previous, deployedCodeBytes: after };
  }

  /** Removes a pointer (e.g. `DELETE …/hook/shadow`); returns what it pointed at. */
  async dropPointer(
    target: string,
    channel: DeployChannel,
  ): Promise<{ dropped: Pointer | null; pointers: Pointers }> {
    const dropped = this.#state.pointers(target)[channel];
    this.#state.deletePointer(target, channel);
    const pointers = this.#state.pointers(target);
    if (dropped !== null) await this.#leases.changed();
    return { dropped, pointers };
  }

  /**
   * Resets a target: a new generation with an empty draft (old ETags never match
   * again), no pointers, its history bytes released. The caller then deletes the
   * target's `hook_versions` rows below `generation` (deleteTargetVersions) and
   * its revisions, and records the reset event.
   */
  async resetTarget(workspaceUid: string, target: string): Promise<ResetOutcome> {
    // The lease wait runs after the mutex is released: saves need not queue behind it.
    const outcome = await this.#mutex.run(async () => {
      await this.#ready(workspaceUid);
      const head = this.#head(target);
      const next: StoredHeadRow = {
        target,
        generation: head.generation + 1,
        version: 0,
        contentHash: this.#emptyHash,
        historyBytes: 0,
      };
      const droppedPointers = this.#state.pointers(target);
      const deployedBefore = this.#state.deployedCodeBytes();
      this.#state.putHead(next);
      this.#state.deletePointer(target, "active");
      this.#state.deletePointer(target, "shadow");
      return {
        generation: next.generation,
        previous: { generation: head.generation, version: head.version },
        head: this.#view(next),
        historyBytesReleased: head.historyBytes,
        droppedPointers,
        deployedCodeBytesReleased: deployedBefore - this.#state.deployedCodeBytes(),
      };
    });
    await this.#leases.changed();
    return outcome;
  }

  /** Allowance and quota usage of the workspace (for limits views and tests). */
  async getUsage(workspaceUid: string, now: number): Promise<AllowanceUsage> {
    await this.#ready(workspaceUid);
    const window = hourWindow(this.clock(now));
    return {
      draftHistoryBytes: { used: this.#state.historyBytes(), limit: LIMITS.draftHistoryBytesPerWorkspace },
      deployedCodeBytes: {
        used: this.#state.deployedCodeBytes(),
        limit: LIMITS.deployedCodeBytesPerWorkspace,
      },
      draftSaves: {
        used: this.#state.quotaUsed(SAVES_BUCKET, window.start),
        limit: LIMITS.draftSavesPerHour,
        resetAt: iso(window.resetAt),
      },
    };
  }

  /** Adds a key to the workspace's revoked-key list (idempotent: a repeat still waits out older leases). */
  async revokeKey(keyId: string, now: number = Date.now()): Promise<void> {
    this.#state.revoke(keyId, iso(this.clock(now)));
    await this.#leases.changed();
  }

  isKeyRevoked(keyId: string): boolean {
    return this.#state.isRevoked(keyId);
  }

  /** The workspace's catalog version (see WorkspaceView). */
  catalogVersion(): number {
    return Number(this.#state.getMeta("catalog_version") ?? "0");
  }

  /** Called by every writer of catalog data, after its D1 write; returns the new version. */
  async catalogChanged(): Promise<number> {
    const next = this.catalogVersion() + 1;
    this.#state.setMeta("catalog_version", String(next));
    await this.#leases.changed();
    return next;
  }

  /**
   * The hot paths' lease: the view as it is now, for the lease length. Keys
   * revoked longer ago than KNOBS.revokedKeyHorizonMs are left out: no isolate
   * still holds them resolved, and D1 refuses them.
   */
  grantLease(): Lease {
    const since = iso(Date.now() - KNOBS.revokedKeyHorizonMs);
    const view: WorkspaceView = {
      epoch: this.#leases.epoch,
      catalog: this.catalogVersion(),
      pointers: this.#state.allPointers(),
      revoked: this.#state.revokedSince(since),
    };
    // An object nothing ever wrote to (any name a request can make up: the gateway asks for a
    // lease beside the key's lookup) answers its empty view for that one call, with no lease to
    // record, so a stranger's request stores nothing. The first write ends that: it has no lease
    // to wait for, and every grant after it is a real one.
    if (this.#state.neverWritten()) return { view, ms: 0 };
    return { view, ms: this.#leases.grant() };
  }

  #head(target: string): StoredHeadRow {
    return (
      this.#state.head(target) ?? {
        target,
        generation: 0,
        version: 0,
        contentHash: this.#emptyHash,
        historyBytes: 0,
      }
    );
  }

  #view(head: StoredHeadRow): Head {
    return {
      generation: head.generation,
      version: head.version,
      etag: draftEtag(head),
      contentHash: head.contentHash,
    };
  }

  /** Binds the object to its workspace and, once per instance, rebuilds heads from D1. */
  async #ready(workspaceUid: string): Promise<void> {
    const bound = this.#state.getMeta("workspace_uid");
    if (bound === null) this.#state.setMeta("workspace_uid", workspaceUid);
    else if (bound !== workspaceUid)
      throw new Error(`WorkspaceObject of ${bound} was called for ${workspaceUid}`);
    this.#reconciled ??= this.#reconcileAll(workspaceUid).catch((error: unknown) => {
      this.#reconciled = null;
      throw error;
    });
    await this.#reconciled;
  }

  async #reconcileAll(workspaceUid: string): Promise<void> {
    this.#emptyHash = await emptyContentHash();
    const stored = await storedHeads(this.env.DB, workspaceUid);
    this.#adopt(
      stored,
      this.#state.heads().map((h) => h.target),
    );
  }

  async #reconcileTarget(workspaceUid: string, target: string): Promise<void> {
    this.#adopt(await storedHeads(this.env.DB, workspaceUid, target), [target]);
  }

  /**
   * Makes the local heads agree with D1: for each target, the newest version of its
   * current generation (or of D1's newest generation when the object has no head).
   */
  #adopt(stored: Awaited<ReturnType<typeof storedHeads>>, localTargets: readonly string[]): void {
    const targets = new Set([...localTargets, ...stored.map((s) => s.target)]);
    for (const target of targets) {
      const local = this.#state.head(target);
      const candidates = stored.filter((s) => s.target === target);
      const generation = local?.generation ?? Math.max(0, ...candidates.map((s) => s.generation));
      const match = candidates.find((s) => s.generation === generation);
      this.#state.putHead({
        target,
        generation,
        version: match?.version ?? 0,
        contentHash: match?.contentHash ?? this.#emptyHash,
        historyBytes: match?.bytes ?? 0,
      });
    }
  }
}
