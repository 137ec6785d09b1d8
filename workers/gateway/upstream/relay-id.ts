// Requests an upstream sends during a call (sampling, elicitation, roots) are
// passed to the client under an id of the gateway's. The gateway is stateless,
// and the client's answer arrives in a later POST that any isolate may serve:
// the id carries where that answer goes — the service, the upstream session
// and protocol version, the upstream's own request id — and the client session
// it was sent to, so only that session can answer it.
import { decodeText, encodeText, sessionKey } from "./client-session";

export const RELAY_ID_PREFIX = "rayrun-relay.";

export interface RelayedRequest {
  serviceUid: string;
  upstreamSession: string | null;
  protocolVersion: string;
  upstreamId: string | number;
  /** The client session the request went to (its key part). */
  clientSession: string;
}

export function relayId(request: RelayedRequest): string {
  const { serviceUid, upstreamSession, protocolVersion, upstreamId, clientSession } = request;
  return `${RELAY_ID_PREFIX}${encodeText(
    JSON.stringify([1, serviceUid, upstreamSession, protocolVersion, upstreamId, sessionKey(clientSession)]),
  )}`;
}

/** The relayed request an id names, or null for any other id. */
export function parseRelayId(id: unknown): RelayedRequest | null {
  if (typeof id !== "string" || !id.startsWith(RELAY_ID_PREFIX)) return null;
  const text = decodeText(id.slice(RELAY_ID_PREFIX.length));
  if (text === null) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || parts.length !== 6 || parts[0] !== 1) return null;
  const [, serviceUid, upstreamSession, protocolVersion, upstreamId, clientSession] = parts as unknown[];
  if (
    typeof serviceUid !== "string" ||
    (upstreamSession !== null && typeof upstreamSession !== "string") ||
    typeof protocolVersion !== "string" ||
    (typeof upstreamId !== "string" && typeof upstreamId !== "number") ||
    typeof clientSession !== "string"
  )
    return null;
  return { serviceUid, upstreamSession, protocolVersion, upstreamId, clientSession };
}
