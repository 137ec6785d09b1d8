// Helpers for the gateway tests: a workspace with a real official-SDK upstream
// indexed, keys, adapters deployed through the API, and an official-SDK MCP
// client talking to the gateway's own fetch handler.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type CallToolResult,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { gateway } from "../../../workers/gateway/app";
import { call, createWorkspace, json } from "../../helpers/api";
import { createService, newUpstream, refresh } from "../api/services/harness";

export { call, json };

export interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | null;
}

export interface Gw {
  ws: string;
  upstream: Omit<ReturnType<typeof newUpstream>, "calls"> & { calls: () => Promise<RecordedCall[]> };
  serviceUid: string;
  /** Tool uids by upstream name. */
  tools: Record<string, string>;
  /** hooks:read + hooks:write (actor "alice"). */
  writeKey: string;
  /** tools:call only (actor "agent"). */
  callKey: string;
  callKeyId: string;
  ctx: ExecutionContext;
}

const isRecordedCall = (value: unknown): value is RecordedCall =>
  typeof value === "object" &&
  value !== null &&
  "tool" in value &&
  "arguments" in value &&
  "authorization" in value;

export async function createKey(ws: string, body: { scopes: string[]; actor: string; profile?: string }) {
  return json<{ id: string; key: string; profile: string }>(
    await call("POST", `/v1/workspaces/${ws}/keys`, { body }),
    201,
  );
}

export async function putSecret(ws: string, name: string, value: string) {
  const res = await call("PUT", `/v1/workspaces/${ws}/secrets/${name}`, { body: { value } });
  expect({ status: res.status, body: await res.text() }).toEqual({ status: 204, body: "" });
}

/** A fresh workspace with one service on its own upstream, its tools indexed. */
export async function setup(
  options: {
    payloadCapture?: boolean;
    secret?: { name: string; value: string };
    /** Register this upstream (another workspace's) instead of a fresh one. */
    upstream?: ReturnType<typeof newUpstream>;
  } = {},
): Promise<Gw> {
  const ws = (await createWorkspace("gateway")).uid;
  const raw = options.upstream ?? newUpstream();
  const upstream = { ...raw, calls: async () => (await raw.calls()).filter(isRecordedCall) };
  if (options.secret) await putSecret(ws, options.secret.name, options.secret.value);
  const service = await createService(ws, {
    name: "demo",
    url: upstream.url,
    payloadCapture: options.payloadCapture ?? true,
    ...(options.secret ? { authorizationSecret: options.secret.name } : {}),
  });
  const refreshed = await refresh(ws, service.uid);
  const tools = Object.fromEntries(refreshed.tools.map((t) => [t.upstreamName, t.uid]));
  const { key: writeKey } = await createKey(ws, { scopes: ["hooks:read", "hooks:write"], actor: "alice" });
  const { key: callKey, id: callKeyId } = await createKey(ws, { scopes: ["tools:call"], actor: "agent" });
  return {
    ws,
    upstream,
    serviceUid: service.uid,
    tools,
    writeKey,
    callKey,
    callKeyId,
    ctx: createExecutionContext(),
  };
}

const hookPath = (g: Gw, tool: string) => `/v1/workspaces/${g.ws}/tools/${g.tools[tool]}/hook`;

/** Saves `source` as the tool's next draft version, tests it with `testArgs` and deploys it to `channel`. */
export async function deploy(
  g: Gw,
  tool: string,
  source: string,
  options: {
    channel?: "active" | "shadow";
    testArgs?: Record<string, unknown>;
    /** Test the after stage with this mock result instead of before. */
    testResult?: unknown;
    config?: Record<string, unknown>;
  } = {},
): Promise<{ revisionId: string; version: number }> {
  const hook = hookPath(g, tool);
  const etag = (await call("GET", hook, { key: g.writeKey })).headers.get("etag") ?? "";
  const saved = await call("PUT", `${hook}/draft`, {
    key: g.writeKey,
    body: { source, config: options.config ?? {} },
    headers: { "if-match": etag },
  });
  const { version } = await json<{ version: number }>(saved, 200);
  const test = await json<{ ok: boolean }>(
    await call("POST", `${hook}/test`, {
      key: g.writeKey,
      body:
        options.testResult === undefined
          ? { stage: "before", arguments: options.testArgs ?? {}, version }
          : { stage: "after", result: options.testResult, version },
    }),
    200,
  );
  expect(test).toMatchObject({ ok: true });
  const res = await call("POST", `${hook}/deployments`, {
    key: g.writeKey,
    body: { version, channel: options.channel ?? "active" },
  });
  const body = await res.json<{ revision: { id: string } }>();
  expect({ status: res.status, body }).toMatchObject({
    status: expect.toBeOneOf([200, 201]),
    body: { revision: { id: expect.any(String) } },
  });
  return { revisionId: body.revision.id, version };
}

/** The gateway's fetch handler as a `fetch` function, within the harness's execution context. */
export const gatewayFetch =
  (g: Pick<Gw, "ctx">) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    gateway.fetch(new Request(input, init), env, g.ctx);

/** An official-SDK MCP client connected to `/mcp/{ws}` with `key` (and any extra headers or session id). */
export async function connect(
  g: Gw,
  key: string = g.callKey,
  options: {
    headers?: Record<string, string>;
    sessionId?: string;
    /** Declared in initialize; set the matching request handlers with `handlers`. */
    capabilities?: ClientCapabilities;
    handlers?: (client: Client) => void;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: "gateway-test", version: "1.0.0" },
    {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
    },
  );
  options.handlers?.(client);
  const transport = new StreamableHTTPClientTransport(new URL(`http://gateway.test/mcp/${g.ws}`), {
    requestInit: { headers: { ...options.headers, authorization: `Bearer ${key}` } },
    fetch: gatewayFetch(g),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  await client.connect(transport);
  return client;
}

/** The MCP session id the gateway issued the client on initialize. */
export function issuedSession(client: Client): string | undefined {
  const transport = client.transport;
  return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
}

/** Calls a tool with the SDK client and returns the CallToolResult. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return CallToolResultSchema.parse(
    await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }),
  );
}

export interface ErrorMeta {
  code: string;
  reason?: string;
  message: string;
  approvalId?: string;
}

/** The `_meta["rayrun/error"]` of a refused call (and that it is a refusal). */
const isErrorMeta = (value: unknown): value is ErrorMeta =>
  typeof value === "object" &&
  value !== null &&
  "code" in value &&
  typeof value.code === "string" &&
  "message" in value;

export function refusalOf(result: CallToolResult): ErrorMeta {
  expect(result).toMatchObject({ isError: true, _meta: { "rayrun/error": { code: expect.any(String) } } });
  const meta = result._meta?.["rayrun/error"];
  if (!isErrorMeta(meta)) throw new Error(`not a refusal: ${JSON.stringify(result)}`);
  expect(result.content).toEqual([{ type: "text", text: meta.message }]);
  return meta;
}

/** Raw JSON-RPC to the gateway (no SDK client). */
export function rawMcp(
  g: Gw,
  body: unknown,
  options: { key?: string | null; headers?: Record<string, string>; ws?: string } = {},
) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...options.headers,
  };
  const key = options.key === undefined ? g.callKey : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return gatewayFetch(g)(`http://gateway.test/mcp/${options.ws ?? g.ws}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export interface RunRow {
  stage: string;
  channel: string;
  outcome: string;
  code: string | null;
  revision_id: string | null;
  request_id: string;
  tool_name: string | null;
  shadow_differed: number | null;
  details: string | null;
}

/** Flushes waitUntil work (log writes, shadow runs) and returns the workspace's run records, oldest first. */
export async function runs(g: Gw): Promise<RunRow[]> {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const { results } = await env.DB.prepare("select * from hook_runs where workspace_uid = ? order by id")
    .bind(g.ws)
    .all<RunRow>();
  return results;
}

/**
 * A `tools:call` key whose access profile asks for approval at risk `high`, with echo's risk set to high:
 * echo then needs approval without any adapter.
 */
export async function riskyEchoKey(g: Gw): Promise<string> {
  await json(
    await call("PUT", `/v1/workspaces/${g.ws}/tools/${g.tools.echo}/gateway`, { body: { risk: "high" } }),
    200,
  );
  await json(
    await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/careful`, { body: { approvalRisk: "high" } }),
    200,
  );
  return (await createKey(g.ws, { scopes: ["tools:call"], actor: "careful", profile: "careful" })).key;
}
