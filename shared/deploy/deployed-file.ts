// The deployed revision of a workspace file, ready to run: what the LLM path
// (request hooks: `lib/x.ts:fn`; plugins) loads. The WorkspaceObject says which
// revision a channel points at; D1 holds its metadata (exports, config) and R2
// its code. Revisions are immutable, so loaded ones are cached in the isolate
// by revision id (bounded, like the gateway's adapter revisions).
import type { WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { leasedView } from "../lease/view";
import { revisionExports } from "./revisions";
import { clearRevisionStore, revisionCode, revisionRow } from "./revision-store";
import { boundedCache } from "../cache";
import type { JsonObject } from "../json";
import { KNOBS } from "../knobs";
import { NO_POINTERS, type DeployChannel, type Pointer, type Pointers } from "../lifecycle/pointers";
import { fileTarget } from "../lifecycle/target";
import { parseFilePath, type FileKind } from "../files/paths";

export interface DeployedFile {
  path: string;
  kind: FileKind;
  revisionId: string;
  version: number;
  /** Compiled script for `runModuleExport` (shared/sandbox). */
  code: string;
  /** A lib file's exported functions, or a plugin's hooks (what `exportPath` addresses). */
  exports: string[];
  config: JsonObject;
}

/** Loaded revisions kept per isolate, bounded in UTF-8 bytes of code (a revision is at most LIMITS.compiledBytes). */
const cache = boundedCache<string, { file: DeployedFile; bytes: number }>({
  size: KNOBS.fileRevisionCacheBytes,
  sizeOf: (entry) => entry.bytes,
});

/**
 * One revision of a file (D1 + R2 on a miss), or null when it does not exist
 * (never deployed, or removed by a reset) or `path` is not a file path.
 */
export async function loadFileRevision(
  env: { DB: D1Database; CODE: R2Bucket },
  workspaceUid: string,
  path: string,
  revisionId: string,
): Promise<DeployedFile | null> {
  const parsed = parseFilePath(path);
  if (!parsed.ok) return null;
  const target = fileTarget(path);
  const key = `${workspaceUid}\n${target}\n${revisionId}`;
  const hit = cache.get(key);
  if (hit) return hit.file;
  const row = await revisionRow(env.DB, workspaceUid, target, revisionId);
  if (!row) return null;
  const code = await revisionCode(env.CODE, row.codeKey);
  if (code === null) return null;
  const file: DeployedFile = {
    path,
    kind: parsed.value.kind,
    revisionId: row.id,
    version: row.version,
    code,
    exports: revisionExports(row),
    config: JSON.parse(row.config) as JsonObject,
  };
  cache.set(key, { file, bytes: row.compiledBytes });
  return file;
}

/**
 * The revision `channel` (default active) of a file points at, or null when
 * the file has none: the pointer from the isolate's lease on the workspace's
 * view (a trip home only without one), then the cached revision.
 */
export async function loadDeployedFile(
  env: Pick<Env, "DB" | "CODE"> & WorkspaceBinding,
  workspaceUid: string,
  path: string,
  channel: DeployChannel = "active",
): Promise<DeployedFile | null> {
  if (!parseFilePath(path).ok) return null;
  const { view } = await leasedView(env, workspaceUid);
  const pointers = view.pointers[fileTarget(path)] ?? NO_POINTERS;
  return pointedRevision(env, workspaceUid, path, pointers[channel]);
}

/** `loadDeployedFile` with the file's pointers already read from the WorkspaceObject (in a round trip of the caller's). */
export async function loadPointedFile(
  env: Pick<Env, "DB" | "CODE">,
  workspaceUid: string,
  path: string,
  pointers: Pointers,
  channel: DeployChannel = "active",
): Promise<DeployedFile | null> {
  if (!parseFilePath(path).ok) return null;
  return pointedRevision(env, workspaceUid, path, pointers[channel]);
}

const pointedRevision = (
  env: { DB: D1Database; CODE: R2Bucket },
  workspaceUid: string,
  path: string,
  pointer: Pointer | null,
): Promise<DeployedFile | null> =>
  pointer === null ? Promise.resolve(null) : loadFileRevision(env, workspaceUid, path, pointer.revisionId);

/** For tests: forget every cached revision. */
export function clearFileRevisionCache(): void {
  cache.clear();
  clearRevisionStore();
}
