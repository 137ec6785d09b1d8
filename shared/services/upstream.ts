// Talking to an upstream MCP server (Streamable HTTP) with the official SDK:
// its client and transport, made here for the index and for the gateway's
// calls alike (workers/gateway/upstream/).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities, ServerCapabilities, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamCapabilities } from "../db/schema";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { KNOBS } from "../knobs";
import { err, ok, type Result } from "../result";

/** Bounds on one `tools/list` walk, so a misbehaving upstream cannot hold a request forever. */
export const UPSTREAM_LIMITS = {
  /** Per MCP request (initialize, each tools/list page). */
  requestTimeoutMs: KNOBS.upstreamListRequestMs,
  /** `nextCursor` pages followed before giving up. */
  toolListPages: KNOBS.upstreamListPages,
  /** Tools one service may expose. */
  toolsPerService: 1000,
} as const;

export type UpstreamError =
  | { kind: "unreachable"; message: string }
  | { kind: "too_many_pages"; pages: number }
  | { kind: "too_many_tools"; tools: number }
  | { kind: "duplicate_tool"; name: string };

export interface UpstreamOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string | null;
}

export const CLIENT_INFO = { name: "rayrun-hooks", version: "1.0.0" };

/**
 * What the index declares: every client capability the gateway can relay. An
 * upstream may list some tools only to clients that declare one (a sampling
 * tool to a client that samples); the gateway lists them to its clients, and
 * a call from a client without the capability has its request refused.
 */
const RELAYABLE_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** An SDK client (not yet connected) declaring `capabilities`. */
export function upstreamClient(capabilities: ClientCapabilities = RELAYABLE_CAPABILITIES): Client {
  // The SDK's default Ajv validator compiles with `new Function`, which workerd forbids.
  return new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), capabilities });
}

/** The SDK's Streamable HTTP transport to an upstream, sending its bearer token with every request. */
export function upstreamTransport(
  url: string,
  options: UpstreamOptions = {},
  transport: Omit<StreamableHTTPClientTransportOptions, "requestInit"> = {},
): StreamableHTTPClientTransport {
  const headers: Record<string, string> = {};
  if (options.bearerToken) headers.authorization = `Bearer ${options.bearerToken}`;
  return new StreamableHTTPClientTransport(new URL(url), { ...transport, requestInit: { headers } });
}

/** A connected SDK client; always `close()` it. */
export async function connectUpstream(url: string, options: UpstreamOptions = {}): Promise<Client> {
  const client = upstreamClient();
  await client.connect(upstreamTransport(url, options), { timeout: UPSTREAM_LIMITS.requestTimeoutMs });
  return client;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What an index reads from an upstream: its tools and what else it offers. */
export interface UpstreamListing {
  tools: Tool[];
  capabilities: UpstreamCapabilities;
}

const flag = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);

/** The capabilities the gateway passes through, as the upstream declared them (unknown fields dropped). */
export function passedCapabilities(declared: ServerCapabilities | undefined): UpstreamCapabilities {
  const out: UpstreamCapabilities = {};
  if (declared?.resources) {
    const subscribe = flag(declared.resources.subscribe);
    const listChanged = flag(declared.resources.listChanged);
    out.resources = {
      ...(subscribe === undefined ? {} : { subscribe }),
      ...(listChanged === undefined ? {} : { listChanged }),
    };
  }
  if (declared?.prompts) {
    const listChanged = flag(declared.prompts.listChanged);
    out.prompts = listChanged === undefined ? {} : { listChanged };
  }
  if (declared?.completions) out.completions = {};
  if (declared?.logging) out.logging = {};
  return out;
}

/** Every tool of the upstream's `tools/list`, following `nextCursor`, and its other capabilities. */
export async function listUpstreamTools(
  url: string,
  options: UpstreamOptions = {},
): Promise<Result<UpstreamListing, UpstreamError>> {
  let client: Client;
  try {
    client = await connectUpstream(url, options);
  } catch (error) {
    return err({ kind: "unreachable", message: describe(error) });
  }
  try {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: UPSTREAM_LIMITS.requestTimeoutMs,
      });
      for (const tool of result.tools) {
        if (seen.has(tool.name)) return err({ kind: "duplicate_tool", name: tool.name });
        seen.add(tool.name);
        tools.push(tool);
      }
      if (tools.length > UPSTREAM_LIMITS.toolsPerService)
        return err({ kind: "too_many_tools", tools: tools.length });
      if (!result.nextCursor)
        return ok({ tools, capabilities: passedCapabilities(client.getServerCapabilities()) });
      if (page >= UPSTREAM_LIMITS.toolListPages) return err({ kind: "too_many_pages", pages: page });
      cursor = result.nextCursor;
    }
  } catch (error) {
    return err({ kind: "unreachable", message: describe(error) });
  } finally {
    await client.close().catch(() => undefined);
  }
}
