// What one `tools/call` shares across the modules of the tool-call path
// (tool-call.ts, call-attempt.ts, approved-call.ts, finish.ts,
// plugin-tool-call.ts): the request and its answers, the call's state, and the
// two ways a refusal or a stale catalog copy becomes the answer.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../json";
import type { RelayCapabilities } from "../services/client-session";
import type { RunRecord } from "../logs";
import type { PluginSet } from "../plugins/call-plugins";
import type { PluginCallScope } from "../plugins/execute-hooks";
import type { CatalogTool } from "./catalog";
import type { WorkspaceCatalog } from "./catalog-cache";
import { runRecord, type RecordScope } from "./records";
import { refusal, type RefusalMeta } from "./results";

export type GatewayEnv = Pick<Env, "DB" | "CODE" | "WORKSPACE" | "RAYRUN_BOOTSTRAP_KEY">;

export interface Caller {
  keyId: string;
  actor: string;
  /** The access profile the key names ("default" when none). */
  profile: string;
}

export interface ToolCallRequest {
  workspaceUid: string;
  name: string;
  arguments: JsonObject;
  /** `params._meta["rayrun/approvalId"]` of a repeated, approved call. */
  approvalId: string | null;
  caller: Caller;
  requestId: string;
  /** The client's agent loop (`x-rayrun-loop`), when it named one. */
  loop?: string;
  /** The client's MCP session id (`mcp-session-id`), when it sent one. */
  sessionId?: string;
  /** The client's `_meta.progressToken`, sent upstream with the call. */
  progressToken?: string | number;
  /** Delivers the upstream's progress and log notifications to the client, when it has a stream for them. */
  relay?: UpstreamNotificationRelay;
  /** The client capabilities its session declared that the gateway relays requests for. */
  clientCapabilities?: RelayCapabilities;
  /** Sends a request to the client on the call's stream, when it has one. */
  requestRelay?: ClientRequestRelay;
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

export type ToolCallAnswer =
  | { kind: "result"; result: CallToolResult }
  | { kind: "unknown_tool" }
  /** The upstream answered with a JSON-RPC error: the client gets it as the upstream's. */
  | { kind: "upstream_error"; code: number; message: string; data?: unknown };

/** Test seams; never set in production. */
export const pipelineFaults: { beforeDispatch?: (request: ToolCallRequest) => Promise<void> | void } = {};

/** The call ran on an isolate copy of the catalog that turned out stale: run it again on a fresh read. */
type StaleCatalog = { kind: "stale_catalog" };
export type Answer = ToolCallAnswer | StaleCatalog;
export const STALE_CATALOG: StaleCatalog = { kind: "stale_catalog" };

export interface CallState {
  env: GatewayEnv;
  catalog: WorkspaceCatalog;
  ctx: Pick<ExecutionContext, "waitUntil">;
  req: ToolCallRequest;
  calledAt: string;
  found: CatalogTool;
  target: string;
  scope: RecordScope;
  records: RunRecord[];
  bearer: string | null;
  /** The workspace's active plugins, read beside the call's first steps (never rejects). */
  plugins: Promise<PluginSet>;
}

export const result = (r: CallToolResult): ToolCallAnswer => ({ kind: "result", result: r });

export function refuse(state: CallState, meta: RefusalMeta, revisionId: string | null): ToolCallAnswer {
  state.records.push(
    runRecord(state.scope, {
      stage: "pipeline",
      channel: "active",
      outcome: "refused",
      code: meta.code,
      revisionId,
      details: { message: meta.message, ...(meta.reason === undefined ? {} : { reason: meta.reason }) },
    }),
  );
  return result(refusal(meta));
}

export const pluginScope = (state: CallState): PluginCallScope => ({
  env: state.env,
  workspaceUid: state.req.workspaceUid,
  requestId: state.req.requestId,
  calledAt: state.calledAt,
  ...clientOrigin(state.req),
  toolName: state.scope.toolName,
  toolUid: state.found.tool.uid,
});

/** The loop and session the client named, for the plugins' `ctx` (absent ones stay absent). */
export const clientOrigin = (req: ToolCallRequest): { loop?: string; sessionId?: string } => ({
  ...(req.loop === undefined ? {} : { loop: req.loop }),
  ...(req.sessionId === undefined ? {} : { sessionId: req.sessionId }),
});

/** Whether the call's catalog is current: read for this call, or confirmed with one round trip. */
export async function catalogCurrent(state: CallState): Promise<boolean> {
  if (state.catalog.fresh) return true;
  const current = await state.env.WORKSPACE.getByName(state.req.workspaceUid).catalogVersion();
  return current === state.catalog.version;
}
