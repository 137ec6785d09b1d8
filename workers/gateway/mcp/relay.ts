// The client's answers to requests the gateway relayed from an upstream
// during a call (sampling, elicitation, roots). They arrive as their own POST,
// maybe at another isolate than the call's: the relay id says which service
// and upstream session wait for them, and only the client session the request
// went to may answer. The upstream then finishes the call on its own stream.
import { isJsonObject } from "../../../shared/json";
import { KNOBS } from "../../../shared/knobs";
import type { Problem } from "../../../shared/http/problem";
import { problemResponse } from "../../../shared/http/problem";
import { serviceBearer } from "../upstream/service-bearer";
import { sessionKey } from "../upstream/client-session";
import { answerUpstream } from "../upstream/transport";
import { parseRelayId, type RelayedRequest } from "../upstream/relay-id";
import type { Scope } from "../wire/scope";

type ClientAnswer = { relayed: RelayedRequest } & ({ result: unknown } | { error: unknown });

/** A JSON-RPC response to a relayed request, or null for any other message. */
function clientAnswer(message: unknown): ClientAnswer | null {
  if (!isJsonObject(message) || message.method !== undefined) return null;
  const relayed = parseRelayId(message.id);
  if (relayed === null) return null;
  if (isJsonObject(message.result)) return { relayed, result: message.result };
  if (isJsonObject(message.error)) return { relayed, error: message.error };
  return null;
}

async function forward(scope: Scope, answer: ClientAnswer): Promise<void> {
  const { relayed } = answer;
  const sessionId = scope.origin.sessionId;
  // Only the session the request went to answers it; anything else is dropped as unknown.
  if (sessionId === undefined || sessionKey(sessionId) !== relayed.clientSession) return;
  const entry = scope.catalog.services.find(({ service }) => service.uid === relayed.serviceUid);
  if (entry === undefined) return;
  const bearer = await serviceBearer(
    scope.env.RAYRUN_BOOTSTRAP_KEY,
    scope.workspaceUid,
    entry.service,
    entry.secret,
  );
  if (!bearer.ok) return;
  const response =
    "result" in answer
      ? { id: relayed.upstreamId, result: answer.result }
      : { id: relayed.upstreamId, error: answer.error };
  const delivered = await answerUpstream(
    {
      url: entry.service.url,
      bearerToken: bearer.value,
      sessionId: relayed.upstreamSession,
      protocolVersion: relayed.protocolVersion,
    },
    response,
    AbortSignal.timeout(KNOBS.relayForwardMs),
  );
  if (!delivered) console.warn("a relayed answer was not accepted upstream", { service: entry.service.uid });
}

/**
 * Answers a POST whose messages are all answers to relayed requests (202, as
 * for any response a client posts), or null when it holds anything else.
 */
export async function forwardClientAnswers(
  scope: Scope,
  body: unknown,
  revoked: () => Promise<Problem | null>,
): Promise<Response | null> {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const answers = messages.map(clientAnswer).filter((answer) => answer !== null);
  if (answers.length === 0 || answers.length !== messages.length) return null;
  const refused = await revoked();
  if (refused !== null) return problemResponse(refused);
  await Promise.all(answers.map((answer) => forward(scope, answer)));
  return new Response(null, { status: 202 });
}
