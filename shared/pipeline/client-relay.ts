// What happens to a request an upstream sends during a call (sampling,
// elicitation, roots): it goes to the client, under an id that says where the
// answer belongs, when the client's session declared the capability and the
// call has a stream to carry it; otherwise the gateway refuses it at once.
import { CAPABILITY_OF_METHOD } from "../services/client-session";
import type { UpstreamRequest } from "../services/mcp-exchange";
import { relayId } from "../services/relay-id";
import type { ToolCallRequest } from "./call-state";
import type { UpstreamSession } from "./upstream-session";

export function clientRequestRelay(
  req: ToolCallRequest,
  serviceUid: string,
): ((request: UpstreamRequest, session: UpstreamSession) => Promise<boolean>) | undefined {
  const { sessionId, requestRelay } = req;
  const capabilities = req.clientCapabilities ?? {};
  if (sessionId === undefined || requestRelay === undefined) return undefined;
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
    return requestRelay({ ...request, id });
  };
}
