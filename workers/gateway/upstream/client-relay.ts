// What happens to a request an upstream sends its client (sampling,
// elicitation, roots), during a call or on the client's standalone stream: it
// goes to the client, under an id that says where the answer belongs, when the
// client's session declared the capability and a stream can carry it;
// otherwise the gateway refuses it at once.
import type { ClientRequestRelay, RelayCapabilities } from "../wire/relay";
import { CAPABILITY_OF_METHOD } from "./client-session";
import type { UpstreamRequest } from "./upstream-messages";
import { relayId } from "./relay-id";
import type { UpstreamSession } from "./upstream-session";

export type UpstreamRequestRelay = (request: UpstreamRequest, session: UpstreamSession) => Promise<boolean>;

/** Relays one service's requests to a client session through `send`; false when it may not. */
export function relayTo(
  client: { sessionId: string; capabilities: RelayCapabilities; send: ClientRequestRelay },
  serviceUid: string,
): UpstreamRequestRelay {
  const { sessionId, capabilities, send } = client;
  return async (request, session) => {
    const capability = CAPABILITY_OF_METHOD[request.method];
    if (capability === undefined || capabilities[capability] === undefined) return false;
    const id = relayId({
      serviceUid,
      upstreamSession: session.sessionId,
      protocolVersion: session.protocolVersion,
      upstreamId: request.id,
      clientSession: sessionId,
    });
    return send({ ...request, id });
  };
}

/** The relay for a tool call's upstream, when the call has a client session and a stream. */
export function clientRequestRelay(
  req: { sessionId?: string; requestRelay?: ClientRequestRelay; clientCapabilities?: RelayCapabilities },
  serviceUid: string,
): UpstreamRequestRelay | undefined {
  const { sessionId, requestRelay } = req;
  if (sessionId === undefined || requestRelay === undefined) return undefined;
  return relayTo({ sessionId, capabilities: req.clientCapabilities ?? {}, send: requestRelay }, serviceUid);
}
