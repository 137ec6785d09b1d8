// Helpers for the service and tool route tests.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call as callWorker, json } from "../../../helpers/api";

/** A request to the API as a client sends it. */
export const call = callWorker;

/** A fresh, independent upstream MCP server (official SDK) for one test. */
export function newUpstream() {
  const id = crypto.randomUUID();
  const base = `http://upstream.test/${id}`;
  const control = async (action: string, body: unknown) => {
    const res = await fetch(`${base}/${action}`, { method: "POST", body: JSON.stringify(body) });
    expect(res.status).toBe(200);
  };
  return {
    url: `${base}/mcp`,
    variant: (variant: "v1" | "v2") => control("_variant", { variant }),
    hide: (tools: string[]) => control("_hide", { tools }),
    pageSize: (pageSize: number | null) => control("_pageSize", { pageSize }),
    extraTools: (count: number) => control("_extraTools", { count }),
    /** Every later tools/call waits `ms` before it is answered. */
    delay: (ms: number) => control("_delay", { ms }),
    mode: (mode: "stateless" | "sse" | "stateful" | "stateful-sse") => control("_mode", { mode }),
    /** The next echo switches the tools to "v2" and sends its client tools/list_changed. */
    changeOnCall: () => control("_changeOnCall", {}),
    /** echo reports progress (when asked) and logs a message before it answers. */
    chatty: (on: boolean) => control("_chatty", { on }),
    /** echo logs and asks for its client's roots on the session's standalone stream (stateful modes). */
    announces: (on: boolean) => control("_announces", { on }),
    /** echo closes its event stream before it answers; the client resumes it ("stateful-sse" only). */
    closesStream: (on: boolean) => control("_closesStream", { on }),
    /** echo first sends its client this request (null: it does not). */
    asksClient: (method: string | null) => control("_asksClient", { method }),
    /** What tools/list says about `tool` beside its definition: title, annotations, execution, `_meta`. */
    listing: (tool: string, listing: Record<string, unknown>) => control("_listing", { tool, listing }),
    /** Every later tools/call is answered with this JSON-RPC error (null: answered normally again). */
    rpcError: (error: { code: number; message: string; data?: unknown } | null) =>
      control("_rpcError", error),
    /** Every request the upstream received: its method and the MCP session id it carried. */
    requests: async () =>
      (await fetch(`${base}/_requests`)).json<{ method: string; sessionId: string | null }[]>(),
    calls: async () => (await fetch(`${base}/_calls`)).json<unknown[]>(),
    /** Whether it offers resources, a template, a prompt and completions beside tools (on by default). */
    extras: (on: boolean) => control("_extras", { on }),
    /** Every resources/subscribe and /unsubscribe it received, as "subscribe <uri>". */
    subscriptions: async () => (await fetch(`${base}/_subscriptions`)).json<string[]>(),
    /** The id every answer of its resources and prompts is tagged with. */
    tag: id,
  };
}

export interface ServiceBody {
  uid: string;
  name: string;
  url: string;
  payloadCapture: boolean;
  authorizationSecret: string | null;
  timeoutMs: number;
  legacy: boolean;
  createdBy: string;
  refreshedAt: string | null;
  deletedAt: string | null;
  deletedBy: string | null;
}

export interface ToolBody {
  uid: string;
  name: string | null;
  upstreamName: string;
  serviceUid: string;
  serviceName: string;
  connectionId: string;
  description: string | null;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  definitionHash: string;
  reviewState: "accepted" | "review_required";
  pendingHash: string | null;
  pendingDefinition: Record<string, unknown> | null;
  acceptedBy: string | null;
  removedAt: string | null;
  serviceDeleted?: boolean;
}

export interface RefreshBody {
  service: ServiceBody;
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  tools: ToolBody[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export async function createService(
  ws: string,
  body: {
    name: string;
    url: string;
    payloadCapture?: boolean;
    authorizationSecret?: string;
    timeoutMs?: number;
  },
  key?: string,
) {
  return json<ServiceBody>(await call("POST", `/v1/workspaces/${ws}/services`, { body, key }), 201);
}

export async function refresh(ws: string, svc: string, key?: string) {
  return json<RefreshBody>(await call("POST", `/v1/workspaces/${ws}/services/${svc}/refresh`, { key }), 200);
}

/** Every tool of the workspace's list, following cursors. */
export async function listTools(ws: string, query = "", key?: string): Promise<ToolBody[]> {
  const all: ToolBody[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(query);
    params.set("limit", "2");
    if (cursor !== null) params.set("cursor", cursor);
    const page: Page<ToolBody> = await json<Page<ToolBody>>(
      await call("GET", `/v1/workspaces/${ws}/tools?${params.toString()}`, { key }),
      200,
    );
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

export const byName = <T extends { upstreamName: string }>(tools: readonly T[]): Record<string, T> =>
  Object.fromEntries(tools.map((t) => [t.upstreamName, t]));

/** Every stored row of a workspace's services and tools, to compare before and after a refused request. */
export async function snapshot(ws: string): Promise<string> {
  const rows = async (table: string) =>
    (await env.DB.prepare(`select * from ${table} where workspace_uid = ? order by uid`).bind(ws).all())
      .results;
  const [services, tools] = await Promise.all([rows("services"), rows("tools")]);
  return JSON.stringify({ services, tools });
}
