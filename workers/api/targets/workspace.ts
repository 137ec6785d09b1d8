// The 404s and 409s every workspace route starts with: the workspace must
// exist, a named service or tool must belong to it, and a deleted service
// takes no writes but a reset of its hooks.
import type { Database } from "../../../shared/db/client";
import { ProblemException } from "../../../shared/http/problem";
import { findService, findTool, type ServiceRow } from "../../../shared/services/store";
import { findWorkspace, type WorkspaceRow } from "../stores/workspaces";

/** The route's workspace; 404 when it does not exist. */
export async function requireWorkspace(db: Database, uid: string): Promise<WorkspaceRow> {
  const row = await findWorkspace(db, uid);
  if (!row)
    throw new ProblemException({ code: "workspace_not_found", detail: `Workspace ${uid} does not exist.` });
  return row;
}

/** A service of the workspace (live or deleted); 404 otherwise. */
export async function requireService(
  db: Database,
  workspaceUid: string,
  serviceUid: string,
): Promise<ServiceRow> {
  await requireWorkspace(db, workspaceUid);
  const row = await findService(db, workspaceUid, serviceUid);
  if (!row)
    throw new ProblemException({ code: "not_found", detail: `No service ${serviceUid} in this workspace.` });
  return row;
}

/** An indexed tool of the workspace with its service; 404 otherwise. */
export async function requireTool(db: Database, workspaceUid: string, toolUid: string) {
  await requireWorkspace(db, workspaceUid);
  const found = await findTool(db, workspaceUid, toolUid);
  if (!found)
    throw new ProblemException({ code: "not_found", detail: `No tool ${toolUid} in this workspace.` });
  return found;
}

/** Deleted services (and legacy ones, deleted before deletion was guarded) take no writes but reset. */
export const isDeleted = (service: Pick<ServiceRow, "deletedAt" | "legacy">): boolean =>
  service.deletedAt !== null || service.legacy;

export function refuseDeleted(service: ServiceRow, action: string): void {
  if (!isDeleted(service)) return;
  throw new ProblemException({
    code: "conflict",
    detail: `Service ${service.uid} is deleted${service.legacy ? " (legacy)" : ""}: it cannot ${action}; only its hooks can be reset.`,
    extensions: { service: service.uid, legacy: service.legacy },
  });
}
