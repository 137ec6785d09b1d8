// Misbehaving peers for the fault tests, in Node on loopback (workerd under
// `wrangler dev` reaches 127.0.0.1 like any address): an MCP upstream and an
// LLM provider whose first path segment says how they fail. The demo upstream
// and provider of the dev server only answer well or with an injected status;
// slowness, garbage, hangs and streams cut short need a server of our own.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface FakeServer {
  url: string;
  /** Requests received per first path segment (the mode). */
  received: Map<string, number>;
  close: () => Promise<void>;
}

async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, mode: string) => Promise<void>,
): Promise<FakeServer> {
  const received = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const mode = (req.url ?? "/").split("/")[1] ?? "";
    received.set(mode, (received.get(mode) ?? 0) + 1);
    handler(req, res, mode).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    // Hanging answers never end by themselves: their sockets are destroyed so close() returns.
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function bodyOf(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `slow-<ms>` → ms; other modes → null. */
const delayOf = (mode: string): number | null => {
  const match = /^slow-(\d+)$/.exec(mode);
  return match ? Number(match[1]) : null;
};

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
};

// ── MCP upstream ────────────────────────────────────────────────────────────

/**
 * An MCP server (Streamable HTTP, stateless JSON) at `<url>/<mode>/mcp` with one
 * tool, `probe`. initialize and tools/list always work, so a service can be
 * registered and indexed; tools/call then fails as `mode` says:
 * `ok`, `slow-<ms>`, `hang`, `html`, `bad-json`, `not-rpc`, `bad-sse`, `reset`, `http-500`, `wrong-id`.
 */
export function fakeUpstream(): Promise<FakeServer> {
  return listen(async (req, res, mode) => {
    if (req.method !== "POST") {
      // No standalone SSE stream and no sessions to delete.
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const text = await bodyOf(req);
    const message = JSON.parse(text) as {
      id?: number | string;
      method?: string;
      params?: { protocolVersion?: string };
    };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const answer = (result: unknown) => json(res, 200, { jsonrpc: "2.0", id: message.id, result });
    if (message.method === "initialize") {
      answer({
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "reliability-fake", version: "1.0.0" },
      });
      return;
    }
    if (message.method === "tools/list") {
      answer({
        tools: [
          {
            name: "probe",
            description: "Answers, or fails as the server's mode says",
            inputSchema: { type: "object", properties: { text: { type: "string" } } },
          },
        ],
      });
      return;
    }
    if (message.method !== "tools/call") {
      json(res, 200, {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      });
      return;
    }
    const delay = delayOf(mode);
    if (delay !== null) await sleep(delay);
    switch (mode) {
      case "hang":
        // Never answers; close() ends it.
        return;
      case "html":
        res.writeHead(200, { "content-type": "text/html" }).end("<html><body>502 Bad Gateway</body></html>");
        return;
      case "bad-json":
        res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":');
        return;
      case "not-rpc":
        json(res, 200, { hello: "world", items: [1, 2, 3] });
        return;
      case "bad-sse":
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end("event: message\ndata: {not json\n\ndata: 42\n\n");
        return;
      case "reset":
        res.socket?.destroy();
        return;
      case "http-500":
        res.writeHead(500, { "content-type": "text/plain" }).end("upstream exploded");
        return;
      case "wrong-id":
        json(res, 200, {
          jsonrpc: "2.0",
          id: "someone-else",
          result: { content: [{ type: "text", text: "?" }] },
        });
        return;
      default:
        answer({ content: [{ type: "text", text: `ok (${mode})` }] });
    }
  });
}

// ── LLM provider ────────────────────────────────────────────────────────────

type Dialect = "openai" | "anthropic";

const providerError = (dialect: Dialect, message: string) =>
  dialect === "openai"
    ? { error: { message, type: "server_error", param: null, code: null } }
    : { type: "error", error: { type: "api_error", message } };

const completion = (dialect: Dialect, text: string) =>
  dialect === "openai"
    ? {
        id: "chatcmpl-fake",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: "fake",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }
    : {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "fake",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };

/** The first events of a stream, before any end: what a provider cut off mid-answer sent. */
const firstEvents = (dialect: Dialect): string[] =>
  dialect === "openai"
    ? [0, 1, 2].map(
        (i) =>
          `data: ${JSON.stringify({
            id: "chatcmpl-fake",
            object: "chat.completion.chunk",
            created: 0,
            model: "fake",
            choices: [
              {
                index: 0,
                delta: i === 0 ? { role: "assistant", content: "" } : { content: `part${i} ` },
                logprobs: null,
                finish_reason: null,
              },
            ],
          })}\n\n`,
      )
    : [
        `event: message_start\ndata: ${JSON.stringify({
          type: "message_start",
          message: {
            id: "msg_fake",
            type: "message",
            role: "assistant",
            model: "fake",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        })}\n\n`,
        `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
        `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "part1 " } })}\n\n`,
      ];

const lastEvents = (dialect: Dialect): string[] =>
  dialect === "openai"
    ? [
        `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake", choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }] })}\n\n`,
        "data: [DONE]\n\n",
      ]
    : [
        `event: content_block_stop\ndata: ${JSON.stringify({ type: "content_block_stop", index: 0 })}\n\n`,
        `event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } })}\n\n`,
        `event: message_stop\ndata: ${JSON.stringify({ type: "message_stop" })}\n\n`,
      ];

/**
 * An OpenAI- and Anthropic-style provider at `<url>/<mode>` (OpenAI base URL
 * `<url>/<mode>/v1`, Anthropic base URL `<url>/<mode>`), failing as `mode` says:
 * `ok`, `slow-<ms>` (before the first byte), `http-500`, `hang` (no answer at all),
 * `break` (a stream cut off after its first events, the socket destroyed),
 * `stall` (a stream that stops sending after its first events).
 */
export function fakeProvider(): Promise<FakeServer> {
  return listen(async (req, res, mode) => {
    const text = await bodyOf(req);
    const dialect: Dialect = (req.url ?? "").endsWith("/v1/messages") ? "anthropic" : "openai";
    let stream = false;
    try {
      stream = (JSON.parse(text) as { stream?: unknown }).stream === true;
    } catch {
      // a body we cannot read answers as a plain completion
    }
    const delay = delayOf(mode);
    if (delay !== null) await sleep(delay);
    if (mode === "hang") return;
    if (mode === "http-500") {
      json(res, 500, providerError(dialect, "the fake provider failed"));
      return;
    }
    if (mode === "break" || mode === "stall") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const event of firstEvents(dialect)) res.write(event);
      if (mode === "break") {
        // Let the first events leave before the connection dies mid-stream.
        await sleep(100);
        res.socket?.destroy();
      }
      return;
    }
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const event of [...firstEvents(dialect), ...lastEvents(dialect)]) res.write(event);
      res.end();
      return;
    }
    json(res, 200, completion(dialect, `fake answer (${mode})`));
  });
}
