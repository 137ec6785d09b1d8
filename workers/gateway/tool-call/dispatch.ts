// The one upstream `tools/call` of a dispatched call (step 4 of tool-call.ts).
// The bearer token comes from the workspace secret the service names; it is
// added here, after every hook has run, and never reaches a hook. The upstream
// session is the owner's (upstream-session.ts): a call costs a single POST
// once it is open.
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../../../shared/json";
import type { NotificationSink, UpstreamRequest } from "../upstream/upstream-messages";
import { plainToolResult } from "../wire/shapes";
import { clientRequestRelay } from "../upstream/client-relay";
import { reindexService } from "../upstream/reindex";
import {
  requestUpstream,
  serviceEndpoint,
  summary,
  type SessionAnswer,
  type UpstreamEndpoint,
  type UpstreamSession,
} from "../upstream/upstream-session";
import type { LoadedRevision } from "../caches/revision-cache";
import type { Answered, Next } from "./call-types";
import {
  answeredWithShadow,
  refuse,
  type Dispatched,
  type IndexedCall,
  type ShadowView,
} from "./indexed-call";

export { clearUpstreamSessions } from "../upstream/upstream-session";

export type DispatchOutcome =
  | { kind: "result"; result: CallToolResult }
  /** A JSON-RPC error from the upstream: returned to the client as the upstream's error. */
  | { kind: "rpc_error"; code: number; message: string; data?: unknown }
  /** The upstream could not be reached or answered unusably. */
  | { kind: "unavailable"; message: string }
  /** The upstream did not answer within its service's timeout. */
  | { kind: "timeout"; message: string };

/** Where a call goes, whose upstream session it uses, and what happens to the upstream's messages. */
export interface UpstreamTarget extends UpstreamEndpoint {
  /** The client's progress token, sent with the call so the upstream reports progress against it. */
  progressToken?: string | number;
  /** Where the upstream's progress and log notifications go during the call. */
  notify?: NotificationSink;
  /** Passes a request the upstream sends during the call to the client; false when it cannot. */
  relayRequest?: (request: UpstreamRequest, session: UpstreamSession) => Promise<boolean>;
  /**
   * The upstream lists the tool with `execution.taskSupport: "required"`: the
   * gateway calls it as a task and waits for the task's result in the call, so
   * hooks see the result as for any tool (the gateway offers no tasks itself).
   */
  asTask?: boolean;
}

function outcomeOf(answer: SessionAnswer): DispatchOutcome {
  if (answer.kind === "timeout") return { kind: "timeout", message: answer.message };
  if (answer.kind === "unreachable") {
    return { kind: "unavailable", message: `The upstream could not be reached: ${answer.message}` };
  }
  if (answer.kind === "rpc_error") {
    const { kind: _kind, ...error } = answer;
    return { kind: "rpc_error", ...error };
  }
  if (answer.kind !== "result") {
    return { kind: "unavailable", message: `The upstream answered unusably: ${summary(answer)}` };
  }
  const plain = plainToolResult(answer.result);
  if (plain !== null) return { kind: "result", result: plain };
  const parsed = CallToolResultSchema.safeParse(answer.result);
  // The pre-2024 `{ toolResult }` shape has no content: unusable here.
  if (!parsed.success || !Array.isArray(answer.result.content)) {
    return { kind: "unavailable", message: "The upstream answered tools/call without valid content." };
  }
  return { kind: "result", result: parsed.data };
}

export async function dispatchToolCall(
  target: UpstreamTarget,
  upstreamName: string,
  args: JsonObject,
): Promise<DispatchOutcome> {
  const { progressToken, notify, relayRequest } = target;
  const sinks = {
    ...(notify === undefined ? {} : { notify }),
    ...(relayRequest === undefined ? {} : { request: relayRequest }),
  };
  const answer = await requestUpstream(
    target,
    {
      method: "tools/call",
      params: {
        name: upstreamName,
        arguments: args,
        ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
        ...(target.asTask ? { task: { ttl: target.timeoutMs } } : {}),
      },
    },
    sinks,
  );
  if (!target.asTask || answer.kind !== "result") return outcomeOf(answer);
  // A task was created: `tasks/result` answers once it ends, and carries what the task asks the
  // client meanwhile (elicitation, sampling) on its stream.
  const created = CreateTaskResultSchema.safeParse(answer.result);
  if (!created.success) return outcomeOf(answer);
  const finished = await requestUpstream(
    target,
    { method: "tasks/result", params: { taskId: created.data.task.taskId } },
    sinks,
  );
  return outcomeOf(finished);
}

/**
 * Sends an indexed tool's call upstream, once, under `revision`: the result
 * for step 5, else the answer (unreachable and timed-out upstreams are
 * refused; a JSON-RPC error stays the upstream's and no `after` runs).
 */
export async function sendUpstream(
  call: IndexedCall,
  bearer: string | null,
  revision: LoadedRevision | null,
  args: JsonObject,
  shadow: ShadowView,
): Promise<Next<Dispatched> | Answered> {
  const { req, found } = call;
  const relayRequest = clientRequestRelay(req, found.service.uid);
  const dispatched = await dispatchToolCall(
    {
      ...serviceEndpoint(found.service, bearer, {
        workspaceUid: req.workspaceUid,
        ...(req.sessionId === undefined ? {} : { sessionId: req.sessionId }),
        ...(req.clientCapabilities === undefined ? {} : { capabilities: req.clientCapabilities }),
      }),
      ...(req.progressToken === undefined ? {} : { progressToken: req.progressToken }),
      notify: upstreamNotifications(call, bearer),
      ...(relayRequest === undefined ? {} : { relayRequest }),
      ...(found.tool.listing?.execution?.taskSupport === "required" ? { asTask: true } : {}),
    },
    found.tool.upstreamName,
    args,
  );
  if (dispatched.kind === "unavailable" || dispatched.kind === "timeout") {
    const code = dispatched.kind === "timeout" ? "upstream_timeout" : "upstream_unavailable";
    return answeredWithShadow(
      call,
      refuse(call, { code, message: dispatched.message }, revision?.id ?? null),
      shadow,
    );
  }
  if (dispatched.kind === "rpc_error") {
    const { kind: _kind, ...error } = dispatched;
    return answeredWithShadow(call, { kind: "upstream_error", ...error }, shadow);
  }
  return { kind: "next", revision, args, result: dispatched.result, shadow };
}

/**
 * What the upstream's notifications during the call become: a tools/list_changed
 * re-indexes the service after the response (once per call); progress and log
 * messages go to the client when it has a stream for them.
 */
function upstreamNotifications(call: IndexedCall, bearer: string | null): NotificationSink {
  let reindexing = false;
  return async (notification) => {
    if (notification.method === "notifications/tools/list_changed") {
      if (!reindexing) call.ctx.waitUntil(reindexService(call.env, call.found.service, bearer));
      reindexing = true;
      return;
    }
    await call.req.relay?.(notification);
  };
}
