// The JSON shapes of services and tools in API answers.
import { LIMITS } from "../../../shared/limits";
import type { ServiceRow, ToolRow } from "../../../shared/services/store";

export const serviceView = (row: ServiceRow) => ({
  uid: row.uid,
  workspaceUid: row.workspaceUid,
  name: row.name,
  url: row.url,
  payloadCapture: row.payloadCapture,
  authorizationSecret: row.authorizationSecret,
  /** The bound in force: the service's own, else the default. */
  timeoutMs: row.timeoutMs ?? LIMITS.upstreamTimeoutMs,
  legacy: row.legacy,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
  refreshedAt: row.refreshedAt,
  deletedAt: row.deletedAt,
  deletedBy: row.deletedBy,
});

export type ServiceView = ReturnType<typeof serviceView>;

export const toolView = (row: ToolRow, service: Pick<ServiceRow, "uid" | "name">) => ({
  uid: row.uid,
  /** What clients call it; null while it is removed upstream or its service is deleted. */
  name: row.publicName,
  upstreamName: row.upstreamName,
  serviceUid: service.uid,
  serviceName: service.name,
  /** The hook context's connection id is the service uid. */
  connectionId: service.uid,
  description: row.description,
  /** The upstream's display title and behaviour hints (`readOnlyHint`, `destructiveHint`, …). */
  title: row.listing?.title ?? null,
  annotations: row.listing?.annotations ?? null,
  inputSchema: row.inputSchema,
  outputSchema: row.outputSchema,
  definitionHash: row.definitionHash,
  reviewState: row.reviewState,
  pendingHash: row.pendingHash,
  pendingDefinition: row.pendingDefinition,
  acceptedBy: row.acceptedBy,
  acceptedAt: row.acceptedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  removedAt: row.removedAt,
});

export type ToolView = ReturnType<typeof toolView>;
