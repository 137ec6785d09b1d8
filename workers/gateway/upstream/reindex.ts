// Re-indexing a service when its upstream says, during a call, that its tools
// changed (`notifications/tools/list_changed`): the same index and review
// rules as `POST …/services/{svc}/refresh`, run after the response, then the
// workspace's catalog version is bumped so every isolate reads the new index.
import { workspaceObject, type WorkspaceBinding } from "../../../durable-objects/workspace/rpc";
import { database } from "../../../shared/db/client";
import { indexTools } from "../../../shared/services/refresh";
import type { ServiceRow } from "../../../shared/services/store";
import { listUpstreamTools } from "../../../shared/services/upstream";

export async function reindexService(
  env: Pick<Env, "DB"> & WorkspaceBinding,
  service: ServiceRow,
  bearerToken: string | null,
): Promise<void> {
  const listed = await listUpstreamTools(service.url, { bearerToken });
  if (!listed.ok) {
    console.warn("re-indexing after tools/list_changed failed", {
      service: service.uid,
      reason: listed.error.kind,
    });
    return;
  }
  const indexed = await indexTools(database(env.DB), service, listed.value);
  if (!indexed.ok) {
    console.warn("re-indexing after tools/list_changed failed", {
      service: service.uid,
      reason: indexed.error.kind,
    });
    return;
  }
  await workspaceObject(env, service.workspaceUid).catalogChanged();
}
