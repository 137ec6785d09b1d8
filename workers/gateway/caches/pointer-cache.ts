// The gateway's isolate-local view of deployment pointers. It only says which
// revision to run a call's stages with; the WorkspaceObject stays the authority
// and is asked once per call after the stages (recheckDispatch), which also
// refreshes this view. A stale entry costs one re-run of the stages, never a
// call dispatched under the wrong revision.
import { boundedCache } from "../../../shared/cache";
import { KNOBS } from "../../../shared/knobs";
import type { Pointers } from "../../../shared/lifecycle/pointers";

const cache = boundedCache<string, Pointers>({ entries: KNOBS.pointerCacheEntries });
const key = (workspaceUid: string, target: string) => `${workspaceUid}\n${target}`;

export function cachedPointers(workspaceUid: string, target: string): Pointers | undefined {
  return cache.get(key(workspaceUid, target));
}

export function rememberPointers(workspaceUid: string, target: string, pointers: Pointers): void {
  cache.set(key(workspaceUid, target), pointers);
}

/** For tests: forget every remembered pointer. */
export function clearPointerCache(): void {
  cache.clear();
}
