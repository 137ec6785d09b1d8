// The JSON shapes of services and tools in API answers.
import { z } from "zod";
import { LIMITS } from "../../../shared/limits";
import type { ServiceRow, ToolRow } from "../../../shared/services/store";
import { shaped } from "../openapi/describe";

export const serviceView = (row: ServiceRow) =>
  shaped(ServiceAnswer, {
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

export const toolView = (row: ToolRow, service: Pick<ServiceRow, "uid" | "name">) =>
  shaped(ToolAnswer, {
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

/** What `serviceView` answers, for the OpenAPI document and `shaped` answers. */
export const ServiceAnswer = z.object({
  uid: z.string(),
  workspaceUid: z.string(),
  name: z.string(),
  url: z.string(),
  payloadCapture: z.boolean(),
  authorizationSecret: z.string().nullable().describe("The secret sent as the upstream's bearer token"),
  timeoutMs: z.number().int().describe("The bound in force: the service's own, else the default"),
  legacy: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  refreshedAt: z.string().nullable(),
  deletedAt: z.string().nullable(),
  deletedBy: z.string().nullable(),
});

const JsonObject = z.record(z.string(), z.unknown());

/** What `toolView` answers. */
export const ToolAnswer = z.object({
  uid: z.string(),
  name: z
    .string()
    .nullable()
    .describe("What clients call it; null while removed upstream or its service is deleted"),
  upstreamName: z.string(),
  serviceUid: z.string(),
  serviceName: z.string(),
  connectionId: z.string(),
  description: z.string().nullable(),
  title: z.string().nullable(),
  annotations: JsonObject.nullable(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.nullable(),
  definitionHash: z.string(),
  reviewState: z.enum(["accepted", "review_required"]),
  pendingHash: z.string().nullable(),
  pendingDefinition: z
    .object({
      name: z.string(),
      description: z.string().optional(),
      inputSchema: JsonObject,
      outputSchema: JsonObject.optional(),
    })
    .nullable(),
  acceptedBy: z.string().nullable(),
  acceptedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  removedAt: z.string().nullable(),
});
