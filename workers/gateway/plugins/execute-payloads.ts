// The payloads plugins' `tool.execute.before` / `tool.execute.after` receive
// on the tool-call path (docs/plugins.md "tool.execute payloads"):
//   before: { toolID, args, ctx }
//   after:  { toolID, args, result: { title, output, metadata }, ctx }
// `ctx` says which call this is, so a plugin can correlate its logs and state
// with the call's run records (`requestId`) and the client's loop or session.
import type { Json, JsonObject } from "../../../shared/json";

/** What `ctx` carries; `loop` and `sessionId` only when the client sent them. */
export interface ExecuteContext {
  /** The call's correlation id: its run records' `requestId` and the result's `_meta["rayrun/requestId"]`. */
  requestId: string;
  workspaceUid: string;
  /** ISO-8601 UTC time the gateway took the call. */
  calledAt: string;
  /** The client's agent loop (`x-rayrun-loop`). */
  loop?: string;
  /** The client's MCP session id (`mcp-session-id`). */
  sessionId?: string;
}

/** `ctx` as JSON: absent fields are left out, not null. */
export function executeContext(context: ExecuteContext): JsonObject {
  return {
    requestId: context.requestId,
    workspaceUid: context.workspaceUid,
    calledAt: context.calledAt,
    ...(context.loop === undefined ? {} : { loop: context.loop }),
    ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
  };
}

/** `tool.execute.before`'s payload for a call of `toolID` with `args`. */
export const beforePayload = (toolID: string, args: JsonObject, context: ExecuteContext): JsonObject => ({
  toolID,
  args,
  ctx: executeContext(context),
});

/** `tool.execute.after`'s payload: the call, and the result as `{ title, output, metadata }`. */
export const afterPayload = (
  toolID: string,
  args: Json,
  result: { title: string; output: string; metadata: JsonObject },
  context: ExecuteContext,
): JsonObject => ({ toolID, args, result, ctx: executeContext(context) });
