// Reads and conditional writes of the workspace config document (D1 `workspace_configs`).
import { and, eq } from "drizzle-orm";
import { database } from "../db/client";
import { workspaceConfigs } from "../db/schema";
import {
  configFromDocument,
  DEFAULT_CONFIG,
  type WorkspaceConfig,
  type WorkspaceConfigInput,
} from "./schema";

export const configEtag = (version: number): string => `"c${version}"`;

export interface StoredConfig {
  config: WorkspaceConfig;
  /** 0 while the workspace has never written its config. */
  version: number;
  etag: string;
  updatedAt: string | null;
  updatedBy: string | null;
}

type Row = typeof workspaceConfigs.$inferSelect;

const view = (row: Row | undefined): StoredConfig =>
  row === undefined
    ? { config: DEFAULT_CONFIG, version: 0, etag: configEtag(0), updatedAt: null, updatedBy: null }
    : {
        config: configFromDocument(row.document),
        version: row.version,
        etag: row.etag,
        updatedAt: row.updatedAt,
        updatedBy: row.updatedBy,
      };

/** The config of a workspace with its version and ETag; defaults (version 0) when never written. */
export async function getStoredConfig(db: D1Database, workspaceUid: string): Promise<StoredConfig> {
  const row = await database(db)
    .select()
    .from(workspaceConfigs)
    .where(eq(workspaceConfigs.workspaceUid, workspaceUid))
    .get();
  return view(row);
}

/** Per-request memo for `readWorkspaceConfig`: create one per request, never share across requests. */
export type ConfigCache = Map<string, Promise<WorkspaceConfig>>;

/**
 * The config in force for a workspace (defaults when never written). Pass the
 * same `cache` within one request to read D1 at most once per workspace.
 */
export function readWorkspaceConfig(
  db: D1Database,
  workspaceUid: string,
  cache?: ConfigCache,
): Promise<WorkspaceConfig> {
  const cached = cache?.get(workspaceUid);
  if (cached) return cached;
  const read = getStoredConfig(db, workspaceUid).then((stored) => stored.config);
  if (cache) {
    cache.set(workspaceUid, read);
    // A failed read is not remembered.
    read.catch(() => cache.delete(workspaceUid));
  }
  return read;
}

export type WriteConfigOutcome = { kind: "saved"; stored: StoredConfig } | { kind: "stale" };

/**
 * Replaces the document if the stored version is still `expectedVersion`. One
 * conditional statement decides, so of concurrent writers holding the same
 * ETag exactly one succeeds and no write is lost.
 */
export async function writeWorkspaceConfig(
  db: D1Database,
  request: {
    workspaceUid: string;
    document: WorkspaceConfigInput;
    expectedVersion: number;
    actor: string;
    now: string;
  },
): Promise<WriteConfigOutcome> {
  const version = request.expectedVersion + 1;
  const values = {
    document: JSON.stringify(request.document),
    version,
    etag: configEtag(version),
    updatedAt: request.now,
    updatedBy: request.actor,
  };
  const d = database(db);
  const written =
    request.expectedVersion === 0
      ? await d
          .insert(workspaceConfigs)
          .values({ workspaceUid: request.workspaceUid, ...values })
          .onConflictDoNothing()
          .returning()
          .get()
      : await d
          .update(workspaceConfigs)
          .set(values)
          .where(
            and(
              eq(workspaceConfigs.workspaceUid, request.workspaceUid),
              eq(workspaceConfigs.version, request.expectedVersion),
            ),
          )
          .returning()
          .get();
  return written === undefined ? { kind: "stale" } : { kind: "saved", stored: view(written) };
}
