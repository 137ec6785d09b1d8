// What the gateway relays between a client and its upstreams during a call or
// on the client's standalone stream: the capabilities a client's session
// declared, and the senders that put an upstream's messages on the client's
// stream. Typed here because the endpoint makes them, the tool-call path
// carries them and the upstream exchanges use them.
import type { JsonObject } from "../../../shared/json";

/** The client capabilities the gateway can relay upstream requests for. */
export interface RelayCapabilities {
  sampling?: JsonObject;
  elicitation?: JsonObject;
  roots?: JsonObject;
}

/** Sends a request to the client under the gateway's id; false when it cannot. */
export type ClientRequestRelay = (request: {
  id: string;
  method: string;
  params?: Record<string, unknown>;
}) => Promise<boolean>;

/** A notification from the upstream during the call, passed on to the client. */
export type UpstreamNotificationRelay = (notification: {
  method: string;
  params?: Record<string, unknown>;
}) => Promise<void>;
