// What one MCP request carries through the endpoint's handlers and Code Mode's
// tools: its workspace, caller, client origin and the catalog it found.
import type { WorkspaceCatalog } from "../caches/catalog-cache";
import type { Caller, GatewayEnv } from "../env";
import type { McpOrigin } from "./origin";
import type { RelayCapabilities } from "./relay";

export type Scope = {
  env: GatewayEnv;
  ctx: Pick<ExecutionContext, "waitUntil">;
  workspaceUid: string;
  caller: Caller;
  /** When the request was admitted (isolate clock). */
  receivedAt: number;
  /** The client's loop and session, for plugins' `ctx`. */
  origin: McpOrigin;
  /** The workspace's catalog as this request found it (services and their capabilities). */
  catalog: WorkspaceCatalog;
  /** What the client's session (one the gateway issued) lets the gateway relay to it. */
  clientCapabilities: RelayCapabilities;
};
