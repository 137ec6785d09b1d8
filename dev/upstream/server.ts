// A real MCP server (official SDK, web-standard transport) used as the
// upstream in tests (Node side, through miniflare's outbound service) and in
// `npm start` (as a dev-only Worker). Each `/<id>/…` prefix is an independent
// upstream with its own recorded calls and tool-definition variant, so test
// files running in parallel never see each other's traffic.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { AnySchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { z } from "zod";
import { InMemoryEventStore } from "../conformance/event-store.ts";
import { registerTaskTool, TASK_CAPABILITIES, taskStores } from "./task-tool.ts";
import { EXTRAS_CAPABILITIES, registerExtras, type ExtrasState } from "./extras.ts";

export interface RecordedCall {
  tool: string;
  arguments: unknown;
  authorization: string | null;
}

interface ToolListingFields {
  title?: string;
  annotations?: Record<string, unknown>;
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  _meta?: Record<string, unknown>;
}

interface UpstreamState {
  /** Resources, a template, a prompt and completions beside the tools (on unless turned off). */
  extras: ExtrasState & { tag: string; on: boolean };
  /** "v2" changes one tool's definition, to exercise changed-definition review. */
  variant: "v1" | "v2";
  calls: RecordedCall[];
  /** Tools left out of `tools/list` (and not callable), to exercise removed tools. */
  hidden: Set<string>;
  /** When set, `tools/list` answers this many tools per page with a `nextCursor`. */
  pageSize: number | null;
  /** How many more tools (`extra_0`, `extra_1`, …) to expose, to exercise large services. */
  extraTools: number;
  /**
   * How the transport runs: stateless JSON (the default), stateless answering
   * with SSE, or stateful with session ids (sessions can be forgotten to
   * exercise expiry).
   */
  mode: "stateless" | "sse" | "stateful" | "stateful-sse";
  /** When set, echo reports progress (when asked) and logs a message before it answers. */
  chatty: boolean;
  /** When set, the next echo switches the tools to "v2" and tells its client their list changed. */
  changeOnCall: boolean;
  /** When set, echo first sends this request to its client and reports how it was answered. */
  asksClient: "sampling/createMessage" | "elicitation/create" | "roots/list" | null;
  /** When set, echo logs and asks for the client's roots on the session's standalone stream. */
  announces: boolean;
  /** When set, echo closes its event stream before it answers (a resumable stream, "stateful-sse" only). */
  closesStream: boolean;
  /** How long every tools/call waits before it is answered, to exercise timeouts. */
  callDelayMs: number;
  /** Title, annotations, execution and `_meta` listed for a tool, by name (outside its definition). */
  listings: Map<string, ToolListingFields>;
  /** When set, every tools/call is answered with this JSON-RPC error, worded as an SDK server words it. */
  rpcError: { code: number; message: string; data?: unknown } | null;
  sessions: Map<string, WebStandardStreamableHTTPServerTransport>;
  /** The stateful servers' task stores: each holds a timer per task until its ttl ends. */
  taskStores: ReturnType<typeof taskStores>["taskStore"][];
  /** Every JSON-RPC method posted, with the session id it carried. */
  requests: { method: string; sessionId: string | null }[];
}

function buildServer(state: UpstreamState, authorization: string | null): McpServer {
  const stateful = state.mode === "stateful" || state.mode === "stateful-sse";
  const server = new McpServer(
    { name: "demo-upstream", version: "1.0.0" },
    {
      capabilities: {
        logging: {},
        ...(state.extras.on ? EXTRAS_CAPABILITIES : {}),
        ...(stateful ? TASK_CAPABILITIES : {}),
      },
      ...(stateful ? keptTaskStores(state) : {}),
    },
  );
  if (stateful) registerTaskTool(server);
  if (state.extras.on) registerExtras(server, state.extras.tag, state.extras);
  const record = (tool: string, args: unknown) => state.calls.push({ tool, arguments: args, authorization });

  const searchTool = server.registerTool(
    "search_release_notes",
    {
      description: "Search release notes",
      inputSchema: { q: z.string() },
      outputSchema: { items: z.array(z.object({ title: z.string(), score: z.number() })) },
    },
    async (args) => {
      record("search_release_notes", args);
      const items = [
        { title: `Release notes matching ${args.q}`, score: 0.9 },
        { title: "Older release", score: 0.4 },
      ];
      return { content: [{ type: "text", text: JSON.stringify({ items }) }], structuredContent: { items } };
    },
  );

  const echoInput: { text: z.ZodString; loud?: z.ZodOptional<z.ZodBoolean> } =
    state.variant === "v1" ? { text: z.string() } : { text: z.string(), loud: z.boolean().optional() };
  const echoTool = server.registerTool(
    "echo",
    {
      description: state.variant === "v1" ? "Echo the text back" : "Echo the text back, louder",
      inputSchema: echoInput,
    },
    async (args, extra) => {
      record("echo", args);
      if (state.changeOnCall) {
        state.changeOnCall = false;
        state.variant = "v2";
        await extra.sendNotification({ method: "notifications/tools/list_changed" });
      }
      if (state.chatty) {
        const progressToken = extra._meta?.progressToken;
        const progress = async (done: number) => {
          if (progressToken === undefined) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: done, total: 2, message: `step ${done}` },
          });
        };
        await progress(1);
        await extra.sendNotification({
          method: "notifications/message",
          params: { level: "info", logger: "echo", data: `echoing ${args.text}` },
        });
        if (state.extras.on) await extra.sendNotification({ method: "notifications/resources/list_changed" });
        await progress(2);
      }
      if (state.announces) {
        // Outside the call: on the session's standalone stream, as a server does for session events.
        await server.sendLoggingMessage({ level: "info", logger: "session", data: "announced" });
        const roots = await server.server.listRoots(undefined, { timeout: 5_000 });
        return {
          content: [
            { type: "text", text: `${args.text} (roots: ${roots.roots.map((r) => r.uri).join(",")})` },
          ],
        };
      }
      if (state.closesStream && extra.closeSSEStream !== undefined) {
        // Closes the call's stream before answering: the client must come back for the result.
        extra.closeSSEStream();
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      if (state.asksClient !== null) {
        const asked = await askClient(state.asksClient, extra.sendRequest);
        return { content: [{ type: "text", text: `${args.text} (asked ${state.asksClient}: ${asked})` }] };
      }
      return { content: [{ type: "text", text: args.text }] };
    },
  );

  const failingTool = server.registerTool(
    "always_fails",
    { description: "Returns an upstream tool error", inputSchema: { reason: z.string().optional() } },
    async (args) => {
      record("always_fails", args);
      return {
        isError: true,
        content: [{ type: "text", text: `upstream failure: ${args.reason ?? "none"}` }],
      };
    },
  );
  const registered = new Map([
    ["search_release_notes", searchTool],
    ["echo", echoTool],
    ["always_fails", failingTool],
  ]);
  for (let i = 0; i < state.extraTools; i++) {
    const name = `extra_${i}`;
    registered.set(
      name,
      server.registerTool(
        name,
        { description: `Extra tool ${i}`, inputSchema: { n: z.number() } },
        (args) => {
          record(name, args);
          return { content: [{ type: "text", text: String(args.n) }] };
        },
      ),
    );
  }
  // Listed only to a client that declares sampling, as some servers do; a stateless server never
  // knows its client's capabilities, so only the stateful modes list it.
  server.server.oninitialized = () => {
    if (server.server.getClientCapabilities()?.sampling === undefined) return;
    server.registerTool(
      "ask_model",
      { description: "Asks the client's model", inputSchema: { q: z.string() } },
      async (args, extra) => {
        record("ask_model", args);
        const answer = await extra.sendRequest(
          {
            method: "sampling/createMessage",
            params: { messages: [{ role: "user", content: { type: "text", text: args.q } }], maxTokens: 5 },
          },
          CreateMessageResultSchema,
        );
        return { content: [{ type: "text", text: `model said: ${summarise(answer)}` }] };
      },
    );
  };
  for (const name of state.hidden) registered.get(name)?.disable();
  for (const [name, { execution, ...listed }] of state.listings) {
    const tool = registered.get(name);
    if (tool === undefined) continue;
    tool.update(listed);
    // The SDK's update() does not take `execution`; its tools/list reads the field as is.
    if (execution !== undefined) tool.execution = execution;
  }
  return server;
}

type SendRequest = RequestHandlerExtra<ServerRequest, ServerNotification>["sendRequest"];

/** The part of a client's answer a test can check: sampled text, elicited content, root URIs. */
function summarise(result: unknown): string {
  const sampled = CreateMessageResultSchema.safeParse(result);
  if (sampled.success && sampled.data.content.type === "text") return sampled.data.content.text;
  const roots = ListRootsResultSchema.safeParse(result);
  if (roots.success) return roots.data.roots.map((root) => root.uri).join(",");
  const elicited = ElicitResultSchema.safeParse(result);
  if (elicited.success) return `${elicited.data.action} ${JSON.stringify(elicited.data.content ?? {})}`;
  return JSON.stringify(result);
}

/** Sends the client a request in the middle of a call; "answered <summary>" or "error <code>". */
async function askClient(
  method: NonNullable<UpstreamState["asksClient"]>,
  send: SendRequest,
): Promise<string> {
  const requests: Record<typeof method, { request: ServerRequest; schema: AnySchema }> = {
    "sampling/createMessage": {
      request: {
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 },
      },
      schema: CreateMessageResultSchema,
    },
    "elicitation/create": {
      request: {
        method: "elicitation/create",
        params: { mode: "form", message: "ok?", requestedSchema: { type: "object", properties: {} } },
      },
      schema: ElicitResultSchema,
    },
    "roots/list": { request: { method: "roots/list", params: {} }, schema: ListRootsResultSchema },
  };
  const { request, schema } = requests[method];
  try {
    return `answered ${summarise(await send(request, schema, { timeout: 30_000 }))}`;
  } catch (error) {
    return `error ${error instanceof McpError ? error.code : String(error)}`;
  }
}

/** A set of independent upstreams addressed by the first path segment. */
export function createUpstreams() {
  const states = new Map<string, UpstreamState>();
  const stateOf = (id: string) => {
    let state = states.get(id);
    if (!state) {
      state = {
        variant: "v1",
        calls: [],
        hidden: new Set(),
        pageSize: null,
        extraTools: 0,
        mode: "stateless",
        callDelayMs: 0,
        rpcError: null,
        asksClient: null,
        chatty: false,
        changeOnCall: false,
        closesStream: false,
        announces: false,
        extras: { tag: id, on: true, subscriptions: [] },
        listings: new Map(),
        sessions: new Map(),
        taskStores: [],
        requests: [],
      };
      states.set(id, state);
    }
    return state;
  };

  async function handle(request: Request): Promise<Response> {
    const [, id = "", action = ""] = new URL(request.url).pathname.split("/");
    const state = stateOf(id);
    if (action === "_calls") return Response.json(state.calls);
    if (action === "_variant" && request.method === "POST") {
      const { variant } = await readJson<{ variant: "v1" | "v2" }>(request);
      state.variant = variant;
      return Response.json({ variant });
    }
    if (action === "_hide" && request.method === "POST") {
      const { tools } = await readJson<{ tools: string[] }>(request);
      state.hidden = new Set(tools);
      return Response.json({ hidden: tools });
    }
    if (action === "_pageSize" && request.method === "POST") {
      const { pageSize } = await readJson<{ pageSize: number | null }>(request);
      state.pageSize = pageSize;
      return Response.json({ pageSize });
    }
    if (action === "_extraTools" && request.method === "POST") {
      const { count } = await readJson<{ count: number }>(request);
      state.extraTools = count;
      return Response.json({ count });
    }
    if (action === "_requests") return Response.json(state.requests);
    if (action === "_announces" && request.method === "POST") {
      const { on } = await readJson<{ on: boolean }>(request);
      state.announces = on;
      return Response.json({ on });
    }
    if (action === "_closesStream" && request.method === "POST") {
      const { on } = await readJson<{ on: boolean }>(request);
      state.closesStream = on;
      return Response.json({ on });
    }
    if (action === "_subscriptions") return Response.json(state.extras.subscriptions);
    if (action === "_extras" && request.method === "POST") {
      const { on } = await readJson<{ on: boolean }>(request);
      state.extras.on = on;
      return Response.json({ on });
    }
    if (action === "_mode" && request.method === "POST") {
      const { mode } = await readJson<{ mode: UpstreamState["mode"] }>(request);
      state.mode = mode;
      return Response.json({ mode });
    }
    if (action === "_delay" && request.method === "POST") {
      const { ms } = await readJson<{ ms: number }>(request);
      state.callDelayMs = ms;
      return Response.json({ ms });
    }
    if (action === "_listing" && request.method === "POST") {
      const { tool, listing } = await readJson<{ tool: string; listing: ToolListingFields }>(request);
      state.listings.set(tool, listing);
      return Response.json({ tool, listing });
    }
    if (action === "_changeOnCall" && request.method === "POST") {
      state.changeOnCall = true;
      return Response.json({ changeOnCall: true });
    }
    if (action === "_chatty" && request.method === "POST") {
      const { on } = await readJson<{ on: boolean }>(request);
      state.chatty = on;
      return Response.json({ on });
    }
    if (action === "_asksClient" && request.method === "POST") {
      const { method } = await readJson<{ method: UpstreamState["asksClient"] }>(request);
      state.asksClient = method;
      return Response.json({ method });
    }
    if (action === "_rpcError" && request.method === "POST") {
      state.rpcError = await readJson<UpstreamState["rpcError"]>(request);
      return Response.json(state.rpcError);
    }
    if (action === "_forgetSessions" && request.method === "POST") {
      state.sessions.clear();
      return Response.json({ forgotten: true });
    }
    if (action !== "mcp") return new Response("not found", { status: 404 });
    if (request.method === "POST") request = await recordRequest(request, state);
    if (request.method === "GET")
      state.requests.push({
        method: "GET (standalone stream)",
        sessionId: request.headers.get("mcp-session-id"),
      });
    if (state.callDelayMs > 0 && state.requests.at(-1)?.method === "tools/call") {
      await new Promise((resolve) => setTimeout(resolve, state.callDelayMs));
    }
    if (state.rpcError !== null && state.requests.at(-1)?.method === "tools/call") {
      const { id: requestId } = await readJson<{ id: unknown }>(request.clone());
      // The SDK's McpError puts "MCP error <code>: " in front of its message, and servers send it so.
      const { code, message, data } = state.rpcError;
      const error = {
        code,
        message: `MCP error ${code}: ${message}`,
        ...(data === undefined ? {} : { data }),
      };
      return Response.json({ jsonrpc: "2.0", id: requestId, error });
    }
    if (state.pageSize !== null && request.method === "POST")
      return paginated(request, state, state.pageSize);
    return serve(request, state);
  }

  /**
   * Closes every session (ending the servers' pending requests to clients) and every task store's
   * ttl timers: either would keep a Node process alive for a minute after its last test.
   */
  async function close(): Promise<void> {
    for (const state of states.values()) {
      for (const store of state.taskStores.splice(0)) store.cleanup();
      await Promise.all([...state.sessions.values()].map((transport) => transport.close()));
      state.sessions.clear();
    }
  }

  return Object.assign(handle, { close });
}

async function recordRequest(request: Request, state: UpstreamState): Promise<Request> {
  const text = await request.text();
  let method = "(unparsable)";
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      "method" in parsed &&
      typeof parsed.method === "string"
    )
      method = parsed.method;
  } catch {
    // recorded as unparsable
  }
  state.requests.push({ method, sessionId: request.headers.get("mcp-session-id") });
  return new Request(request.url, { method: "POST", headers: request.headers, body: text });
}

async function serve(request: Request, state: UpstreamState): Promise<Response> {
  if (state.mode === "stateful" || state.mode === "stateful-sse") return serveStateful(request, state);
  // Stateless: a fresh server per request, as a serverless upstream would run.
  const server = buildServer(state, request.headers.get("authorization"));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: state.mode === "stateless",
  });
  await server.connect(transport);
  return transport.handleRequest(request);
}

function keptTaskStores(state: UpstreamState): ReturnType<typeof taskStores> {
  const stores = taskStores();
  state.taskStores.push(stores.taskStore);
  return stores;
}

/** A server per session, as a long-running upstream would keep; unknown sessions get the SDK's 404. */
async function serveStateful(request: Request, state: UpstreamState): Promise<Response> {
  const sessionId = request.headers.get("mcp-session-id");
  const known = sessionId === null ? undefined : state.sessions.get(sessionId);
  if (known) return known.handleRequest(request);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    // "stateful-sse" answers on an event stream, where the server can also send the client requests,
    // and keeps what it sent so a client can resume a stream it closed (Last-Event-ID).
    enableJsonResponse: state.mode === "stateful",
    ...(state.mode === "stateful-sse" ? { eventStore: new InMemoryEventStore(), retryInterval: 100 } : {}),
    onsessioninitialized: (id) => {
      state.sessions.set(id, transport);
    },
  });
  await buildServer(state, request.headers.get("authorization")).connect(transport);
  return transport.handleRequest(request);
}

/**
 * Pages `tools/list` (the SDK's McpServer always answers every tool at once):
 * the cursor is the offset of the next page.
 */
async function paginated(request: Request, state: UpstreamState, pageSize: number): Promise<Response> {
  const text = await request.text();
  const parsed = await readJson<{ method?: string; params?: { cursor?: string } }>(new Response(text));
  const resend = (body: string) =>
    serve(new Request(request.url, { method: "POST", headers: request.headers, body }), state);
  if (parsed.method !== "tools/list") return resend(text);
  const offset = Number(parsed.params?.cursor ?? "0");
  const params = { ...parsed.params };
  delete params.cursor;
  const whole = await resend(JSON.stringify({ ...parsed, params }));
  const answer = await readJson<{ result?: { tools: unknown[]; nextCursor?: string } }>(whole);
  if (answer.result) {
    const all = answer.result.tools;
    answer.result.tools = all.slice(offset, offset + pageSize);
    if (offset + pageSize < all.length) answer.result.nextCursor = String(offset + pageSize);
  }
  return Response.json(answer, { status: whole.status });
}

/** A body's JSON. This file is typed both as Worker and as Node code, whose `json()` signatures differ. */
async function readJson<T>(body: Request | Response): Promise<T> {
  const parsed: unknown = await body.json();
  return parsed as T;
}
