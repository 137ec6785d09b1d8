// What one `tools/call` is and what it answers, and what the steps of
// tool-call.ts hand each other: each step returns the next step's input or
// the call's answer, so no step reads another's state.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AccessApproval } from "../../../shared/access";
import type { JsonObject } from "../../../shared/json";
import type { RunMode } from "../../../shared/logs";
import type { Caller } from "../env";
import type { ClientRequestRelay, RelayCapabilities, UpstreamNotificationRelay } from "../wire/relay";
import type { RefusalMeta } from "../../../shared/mcp/tool-results";

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
  /**
   * When the request carrying the call was admitted (isolate clock): a lease
   * fetched since then is the call's own view. Absent: never treated as its own.
   */
  receivedAt?: number;
  /** `code` for a call made from Code Mode's `execute`: its run records say so. Absent: Direct Mode. */
  mode?: RunMode;
  /** The client's `_meta.progressToken`, sent upstream with the call. */
  progressToken?: string | number;
  /** Delivers the upstream's progress and log notifications to the client, when it has a stream for them. */
  relay?: UpstreamNotificationRelay;
  /** The client capabilities its session declared that the gateway relays requests for. */
  clientCapabilities?: RelayCapabilities;
  /** Sends a request to the client on the call's stream, when it has one. */
  requestRelay?: ClientRequestRelay;
}

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

export const result = (r: CallToolResult): ToolCallAnswer => ({ kind: "result", result: r });

/** A step's go-ahead, with what the next step needs. */
export type Next<T> = { kind: "next" } & T;

/** The call's answer, decided by a step: the later steps do not run. */
export interface Answered {
  kind: "answer";
  answer: Answer;
}

export const answered = (answer: Answer): Answered => ({ kind: "answer", answer });

/** The stages ran on a view of the tool's pointers that turned out stale: they run again under `view`. */
export interface Retry<View> {
  kind: "retry";
  view: View;
}

/** What the access decision asks of the call: approval, when the tool's risk reaches a profile's threshold. */
export type RiskApproval = AccessApproval;

/** Why a call of the tool `name` needs approval under the access decision. */
export const riskReason = (name: string, needed: RiskApproval): string =>
  `Calls to ${name} (risk ${needed.risk}) need approval under access profile ${needed.profile}.`;

/** What step 3 makes of the call step 2 left; step 4 carries it out after its recheck. */
export type Decision = Send | Refuse | Approve;

export interface Send {
  kind: "send";
  args: JsonObject;
}

export interface Refuse {
  kind: "refuse";
  meta: RefusalMeta;
  /** Whether a run record already says why (a hook that ran rejected or failed). */
  recorded: boolean;
}

export interface Approve {
  kind: "approve";
  /** The call the approval binds. */
  args: JsonObject;
  source: "hook" | "risk";
  reason: string;
}

/** The loop and session the client named, for the plugins' `ctx` (absent ones stay absent). */
export const clientOrigin = (req: ToolCallRequest): { loop?: string; sessionId?: string } => ({
  ...(req.loop === undefined ? {} : { loop: req.loop }),
  ...(req.sessionId === undefined ? {} : { sessionId: req.sessionId }),
});
