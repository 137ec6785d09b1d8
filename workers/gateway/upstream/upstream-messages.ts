// What an upstream sends its client besides answers, during a call or on the
// client's standalone stream, and what the gateway does with it: the
// notifications it acts on or passes on, and the requests (sampling,
// elicitation, roots) it relays or refuses.
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Notifications an upstream sends that the gateway acts on or passes to its client. */
export const RELAYED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/progress",
  "notifications/message",
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
]);

export interface UpstreamNotification {
  method: string;
  params?: Record<string, unknown>;
}

export type NotificationSink = (notification: UpstreamNotification) => Promise<void>;

/** A relayed notification, or null. */
export function relayedNotification(message: JSONRPCMessage): UpstreamNotification | null {
  if (!("method" in message) || "id" in message || !RELAYED_NOTIFICATIONS.has(message.method)) return null;
  const { method, params } = message;
  return params === undefined ? { method } : { method, params };
}

/** A request the upstream sends its client (sampling, elicitation, roots). */
export interface UpstreamRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** Passes an upstream's request on to the client; false when it cannot (the gateway then refuses it). */
export type RequestSink = (request: UpstreamRequest) => Promise<boolean>;

export function upstreamRequest(message: JSONRPCMessage): UpstreamRequest | null {
  if (!("method" in message) || !("id" in message)) return null;
  const { id, method, params } = message;
  return params === undefined ? { id, method } : { id, method, params };
}

/** JSON-RPC's "method not found" for a request the client did not declare the capability for. */
export function refusalOf(request: UpstreamRequest): {
  id: string | number;
  error: { code: number; message: string };
} {
  return {
    id: request.id,
    error: {
      code: ErrorCode.MethodNotFound,
      message: `The gateway's client did not declare the capability for ${request.method}.`,
    },
  };
}
