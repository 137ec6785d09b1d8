// The gateway's isolate-local view of deployment pointers. It only says which
// revision to run a call's stages with; the WorkspaceObject stays the authority
// and is asked once per call after the stages (recheckDispatch), which also
// refreshes this view. A stale entry costs one re-run of the stages, never a
// call dispatched under the wrong revision.
import type { Pointers } from "../lifecycle/pointers";

export const POINTER_CACHE_ENTRIES = 4096;

const cache = new Map<string, Pointers>();
const key = (workspaceUid: string, target: string) => `${workspaceUid}\n${target}`;

export function cachedPointers(workspaceUid: string, target: string): Pointers | undefined {
  const k = key(workspaceUid, target);
  const hit = cache.get(k);
  if (hit !== undefined) {
    cache.delete(k);
    cache.set(k, hit);
  }
  return hit;
}

export function rememberPointers(workspaceUid: string, target: string, pointers: Pointers): void {
  const k = key(workspaceUid, target);
  cache.delete(k);
  cache.set(k, pointers);
  if (cache.size > POINTER_CACHE_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
}

/** For tests: forget every remembered pointer. */
export function clearPointerCache(): void {
  cache.clear();
}
