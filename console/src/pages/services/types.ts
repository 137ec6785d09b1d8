// The API's service and tool views (workers/api/services/views.ts), as the console reads them.

export interface Service {
  uid: string;
  name: string;
  url: string;
  payloadCapture: boolean;
  authorizationSecret: string | null;
  timeoutMs: number;
  legacy: boolean;
  createdBy: string;
  createdAt: string;
  refreshedAt: string | null;
  deletedAt: string | null;
  deletedBy: string | null;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface Tool {
  uid: string;
  /** Null while the tool is removed upstream or its service is deleted. */
  name: string | null;
  upstreamName: string;
  serviceUid: string;
  serviceName: string;
  description: string | null;
  title: string | null;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  definitionHash: string;
  reviewState: "accepted" | "review_required";
  pendingHash: string | null;
  pendingDefinition: ToolDefinition | null;
  acceptedBy: string | null;
  acceptedAt: string | null;
  updatedAt: string;
  removedAt: string | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface RefreshResult {
  service: Service;
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  tools: Tool[];
}

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
