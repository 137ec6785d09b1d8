// The gateway Worker's public operations, described here because the api
// Worker serves the one document (and locally the one port): MCP over
// Streamable HTTP at `/mcp/{ws}`, and the OpenAI- and Anthropic-compatible LLM
// proxy at `/llm/{ws}/…`. Written by hand: the gateway validates these bodies
// with the MCP SDK and the providers' own shapes, not with zod schemas this
// Worker could import without pulling gateway code into its bundle.
import type { JsonObject } from "../../../shared/json";
import { PROBLEM_REF } from "./describe";

const problem = { $ref: PROBLEM_REF };
const problemsOf = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), problem]));

const workspace = {
  name: "ws",
  in: "path",
  required: true,
  description: "Workspace uid",
  schema: { type: "string" },
};

const LOOP = {
  name: "x-rayrun-loop",
  in: "header",
  required: false,
  description:
    'The agent loop making the call: "main" (default) or an inner loop\'s name; what pre_llm_hook targets',
  schema: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,64}$" },
};

const SESSION = {
  name: "Mcp-Session-Id",
  in: "header",
  required: false,
  description: "The session id this gateway issued at initialize",
  schema: { type: "string" },
};

const PROTOCOL_VERSION = {
  name: "MCP-Protocol-Version",
  in: "header",
  required: false,
  description: "The MCP protocol version negotiated at initialize",
  schema: { type: "string" },
};

const JSON_RPC_MESSAGE = {
  type: "object",
  description:
    "One JSON-RPC 2.0 message: a request, a notification, or the client's answer to a server request",
  required: ["jsonrpc"],
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { type: ["string", "integer"] },
    method: { type: "string" },
    params: { type: "object" },
    result: {},
    error: { type: "object" },
  },
};

const EVENT_STREAM = { "text/event-stream": { schema: { type: "string" } } };

const mcp: JsonObject = {
  parameters: [workspace],
  post: {
    operationId: "postMcp",
    summary: "MCP over Streamable HTTP: initialize, ping, tools/list, tools/call and relayed messages",
    description:
      "Stateless: the session id the gateway issues carries what later requests need. JSON answers unless the client accepts only an event stream, or asks for progress on a call and accepts one.",
    "x-rayrun-auth": "tools:call",
    parameters: [SESSION, PROTOCOL_VERSION, LOOP],
    requestBody: { required: true, content: { "application/json": { schema: JSON_RPC_MESSAGE } } },
    responses: {
      "200": {
        description: "The JSON-RPC answer, as JSON or as an event stream ending with it",
        content: { "application/json": { schema: JSON_RPC_MESSAGE }, ...EVENT_STREAM },
      },
      "202": { description: "A notification or an answer to a server request was accepted" },
      "400": { description: "A JSON-RPC error (batches, bodies nested too deep) or a problem document" },
      "413": { description: "A JSON-RPC error: the body is over the request limit" },
      "429": {
        description: "A JSON-RPC error: the key is over its MCP rate; Retry-After says when to retry",
      },
      ...problemsOf(401, 403, 404),
    },
  },
  get: {
    operationId: "getMcp",
    summary: "The client's standalone stream: what its stateful upstream sessions send outside any request",
    "x-rayrun-auth": "tools:call",
    parameters: [{ ...SESSION, required: true }, PROTOCOL_VERSION],
    responses: {
      "200": { description: "Server-sent events relayed from the upstreams", content: EVENT_STREAM },
      "429": {
        description: "A JSON-RPC error: the key is over its MCP rate; Retry-After says when to retry",
      },
      ...problemsOf(400, 401, 403, 404, 405),
    },
  },
  delete: {
    operationId: "deleteMcp",
    summary: "Ending a session: always 405, sessions hold no state to end",
    "x-rayrun-auth": "tools:call",
    responses: problemsOf(405),
  },
};

const REQUEST_ID = {
  "x-rayrun-request-id": {
    description: "Names the call in the hook-run logs",
    schema: { type: "string" },
  },
};

/** One provider-compatible endpoint: the provider's own body, rewritten by the request hook. */
function llm(provider: "OpenAI" | "Anthropic", operationId: string, body: string): JsonObject {
  return {
    parameters: [workspace],
    post: {
      operationId,
      summary: `${provider}-compatible endpoint: the request hook and plugins run, then the workspace's provider is called`,
      description:
        "Refusals are problem documents that also carry the provider SDKs' `error: { type, code, message }`; a failed request hook answers 422 and nothing is sent.",
      "x-rayrun-auth": "tools:call",
      ...(provider === "Anthropic" ? { security: [{ bearer: [] }, { anthropicKey: [] }] } : {}),
      parameters: [
        LOOP,
        {
          name: "x-rayrun-compaction",
          in: "header",
          required: false,
          description: "true on history-compaction calls, which never run the request hook",
          schema: { type: "string", enum: ["true", "false"] },
        },
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["model"],
              description: body,
              properties: { model: { type: "string" } },
            },
          },
        },
      },
      responses: {
        "200": {
          description:
            "The provider's answer as it sent it: JSON, or an event stream when the body asks to stream",
          headers: REQUEST_ID,
          content: { "application/json": { schema: { type: "object" } }, ...EVENT_STREAM },
        },
        ...problemsOf(400, 401, 403, 404, 413, 415, 422, 424, 429, 502, 504),
      },
    },
  };
}

export const GATEWAY_PATHS: JsonObject = {
  "/mcp/{ws}": mcp,
  "/llm/{ws}/openai/v1/chat/completions": llm(
    "OpenAI",
    "postOpenaiChatCompletions",
    "An OpenAI chat completions request",
  ),
  "/llm/{ws}/anthropic/v1/messages": llm(
    "Anthropic",
    "postAnthropicMessages",
    "An Anthropic messages request",
  ),
};
