// The API's service and tool views (workers/api/services/views.ts), as its routes type them.
import type { InferResponseType } from "hono/client";
import type { api } from "../../api/client";

type Workspace = (typeof api.v1.workspaces)[":ws"];

export type Service = InferResponseType<Workspace["services"]["$get"], 200>["items"][number];
export type Tool = InferResponseType<Workspace["tools"]["$get"], 200>["items"][number];
export type ToolDefinition = NonNullable<Tool["pendingDefinition"]>;
export type RefreshResult = InferResponseType<Workspace["services"][":svc"]["refresh"]["$post"], 200>;
/** A service's tools with whether each has hook history, or only its history once it is gone. */
export type History = InferResponseType<Workspace["services"][":svc"]["history"]["$get"], 200>;

export const isHistoryOnly = (service: Service) => service.deletedAt !== null || service.legacy;

/** The accepted definition in the shape a pending one has, so the two compare key by key. */
export function acceptedDefinition(tool: Tool): ToolDefinition {
  return {
    name: tool.upstreamName,
    ...(tool.description === null ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === null ? {} : { outputSchema: tool.outputSchema }),
  };
}
