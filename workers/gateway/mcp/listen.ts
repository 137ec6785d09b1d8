// `GET /mcp/{ws}`: a client's standalone stream. It carries what the client's
// stateful upstream sessions send outside any request — log messages, list
// changes, resource updates, and requests (roots/list at the start of a
// session), relayed like those of a call. It exists only for a session the
// gateway issued and while at least one upstream offers a stream; otherwise
// the answer is 405, as the protocol allows.
import { ServerNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { problemResponse } from "../../../shared/http/problem";
import { KNOBS } from "../../../shared/knobs";
import type { ClientRequestRelay } from "../wire/relay";
import type { GatewayEnv } from "../env";
import { endpointOf, type PassthroughScope } from "../upstream/passthrough";
import { relayTo } from "../upstream/client-relay";
import { eachMessage, listenUpstream } from "../upstream/upstream-listen";
import { openSession } from "../upstream/upstream-session";
import { isIssuedSession, sessionCapabilities } from "../upstream/client-session";
import { refuseUpstreamRequest } from "../upstream/transport";
import { relayedNotification, upstreamRequest } from "../upstream/upstream-messages";
import { reindexService } from "../upstream/reindex";
import { currentCatalog, type Admitted } from "../middleware/auth";
import { mcpOrigin } from "../wire/origin";
import { sseEvent } from "./stream";
import { mcpRateRefusal, type RateEnv } from "../middleware/rate-limit";

const noStream = () =>
  problemResponse({
    code: "method_not_allowed",
    detail:
      "No standalone stream: send JSON-RPC messages with POST (a stream needs a session this gateway issued and a stateful upstream).",
    headers: { allow: "POST" },
  });

export async function listenMcp(
  request: Request,
  env: GatewayEnv & RateEnv,
  ctx: Pick<ExecutionContext, "waitUntil">,
  workspaceUid: string,
  admitted: Admitted,
): Promise<Response> {
  if (!(request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream")) return noStream();
  const origin = mcpOrigin(request.headers);
  if (!origin.ok) return problemResponse(origin.error);
  const sessionId = origin.value.sessionId;
  if (sessionId === undefined || !isIssuedSession(sessionId)) return noStream();
  const current = await currentCatalog(env, workspaceUid, admitted);
  if (!current.ok) return problemResponse(current.error);
  const catalog = current.value;
  const limited = await mcpRateRefusal(
    env,
    catalog.rateLimits.mcpPerMinute,
    workspaceUid,
    admitted.caller.keyId,
  );
  if (limited !== null) return limited;
  const capabilities = sessionCapabilities(sessionId);
  const scope: PassthroughScope = {
    rootKey: env.RAYRUN_BOOTSTRAP_KEY,
    workspaceUid,
    caller: admitted.caller,
    catalog,
    clientSession: sessionId,
    clientCapabilities: capabilities,
  };

  const abort = new AbortController();
  // The client's session with every upstream, opened together (each handshake ends; a stuck one
  // is given up after KNOBS.standaloneOpenMs), then a stream from each stateful one.
  const opened = await Promise.all(
    catalog.services.map(async (entry) => {
      const endpoint = await endpointOf(scope, entry);
      if (endpoint.kind !== "ok") return null;
      const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(KNOBS.standaloneOpenMs)]);
      const session = await openSession(endpoint.value, signal).catch(() => null);
      if (session === null || "failed" in session || session.sessionId === null) return null;
      return { entry, endpoint: endpoint.value, session };
    }),
  );
  const listeners = [];
  // One stream at a time: a Worker request holds at most six connections, and each stream kept open is one.
  for (const upstream of opened) {
    if (upstream === null) continue;
    if (listeners.length >= KNOBS.standaloneStreamsMax) break;
    const body = await listenUpstream(upstream.endpoint, upstream.session, abort.signal);
    if (body !== null) listeners.push({ ...upstream, body });
  }
  if (listeners.length === 0) return noStream();

  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    // The client went away: every upstream stream is let go.
    cancel: () => abort.abort(),
  });
  const send = (message: unknown) => {
    try {
      controller?.enqueue(sseEvent(message));
    } catch {
      abort.abort();
    }
  };
  const sendRequest: ClientRequestRelay = async (asked) => {
    send({ jsonrpc: "2.0", ...asked });
    return !abort.signal.aborted;
  };
  const pumps = listeners.map(({ entry, endpoint, session, body: upstream }) =>
    eachMessage(upstream, abort.signal, async (message) => {
      const notification = relayedNotification(message);
      if (notification !== null) {
        if (notification.method === "notifications/tools/list_changed") {
          ctx.waitUntil(reindexService(env, entry.service, endpoint.bearerToken));
          return;
        }
        const parsed = ServerNotificationSchema.safeParse(notification);
        if (parsed.success) send({ jsonrpc: "2.0", ...parsed.data });
        return;
      }
      const asked = upstreamRequest(message);
      if (asked === null) return;
      const relay = relayTo({ sessionId, capabilities, send: sendRequest }, entry.service.uid);
      if (await relay(asked, session)) return;
      const target = { url: endpoint.url, bearerToken: endpoint.bearerToken, ...session };
      await refuseUpstreamRequest(target, asked, abort.signal);
    }),
  );
  const closeWhenDone = async () => {
    await Promise.all(pumps);
    try {
      controller?.close();
    } catch {
      // Already cancelled by the client.
    }
  };
  ctx.waitUntil(closeWhenDone());
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
