// One exchange over the SDK's transport against answers no SDK server gives:
// event streams that end or break before the answer, resumption after the
// upstream's `retry`, and answers that are not JSON-RPC.
import { afterEach, describe, expect, it, vi } from "vitest";
import { KNOBS } from "../../../../shared/knobs";
import { exchange } from "../../../../workers/gateway/upstream/exchange";

const URL_ = "http://upstream.test/exchange/mcp";
const TARGET = { url: URL_, bearerToken: "tok", sessionId: "s-1", protocolVersion: "2025-11-25" };
const CALL = { method: "tools/call", params: { name: "echo", arguments: {} }, id: 7 };
const RESULT = { content: [{ type: "text", text: "done" }] };
const encoder = new TextEncoder();

interface Sent {
  method: string;
  headers: Headers;
  body: unknown;
  at: number;
}

/** Answers the transport's requests with `answer`, in order; what was sent is kept. */
function upstream(answer: (sent: Sent, index: number) => Response): Sent[] {
  const sent: Sent[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (_input, init) => {
    const text = typeof init?.body === "string" ? init.body : undefined;
    const request = {
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: text === undefined ? undefined : (JSON.parse(text) as unknown),
      at: Date.now(),
    };
    sent.push(request);
    return answer(request, sent.length - 1);
  });
  return sent;
}

const sse = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
const event = (message: unknown, id?: string) =>
  `${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify({ jsonrpc: "2.0", ...(message as object) })}\n\n`;
const progress = { method: "notifications/progress", params: { progressToken: "p", progress: 1 } };

afterEach(() => vi.restoreAllMocks());

describe("an exchange", () => {
  it("sends the token, session and version, and relays what came before the answer in order", async () => {
    const sent = upstream(() => sse(event(progress) + event({ id: 7, result: RESULT })));
    const notified: unknown[] = [];
    const answer = await exchange(TARGET, CALL, AbortSignal.timeout(5_000), {
      notify: async (notification) => {
        notified.push(notification);
      },
    });
    expect(answer).toEqual({ kind: "result", result: RESULT });
    expect(notified).toEqual([progress]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ jsonrpc: "2.0", ...CALL });
    expect(Object.fromEntries(sent[0]?.headers ?? [])).toMatchObject({
      authorization: "Bearer tok",
      "mcp-session-id": "s-1",
      "mcp-protocol-version": "2025-11-25",
    });
  });

  it("an event stream that ends without the answer, and gave no event id to resume from, is unusable at once", async () => {
    upstream(() => sse(event(progress)));
    expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual({
      kind: "unusable",
      message: "the event stream ended without an answer",
    });
  });

  it("a stream closed before its answer is resumed with Last-Event-ID after the upstream's retry", async () => {
    const sent = upstream((_sent, index) =>
      index === 0 ? sse(`retry: 20\n${event(progress, "e1")}`) : sse(event({ id: 7, result: RESULT }, "e2")),
    );
    expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual({
      kind: "result",
      result: RESULT,
    });
    expect(sent.map((request) => request.method)).toEqual(["POST", "GET"]);
    expect(sent[1]?.headers.get("last-event-id")).toBe("e1");
    expect(sent[1]?.headers.get("mcp-session-id")).toBe("s-1");
    // The upstream asked for 20 ms; without its retry the wait would be the default.
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeLessThan(KNOBS.streamResumeDefaultDelayMs);
  });

  it("resumes a few times at most, then the answer is unusable", async () => {
    const sent = upstream((_sent, index) => sse(`retry: 0\n${event(progress, `e${index}`)}`));
    expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual({
      kind: "unusable",
      message: "the event stream ended without an answer",
    });
    expect(sent.filter((request) => request.method === "GET")).toHaveLength(KNOBS.streamResumeAttempts);
  });

  it("a resumption the upstream refuses ends the exchange", async () => {
    upstream((_sent, index) =>
      index === 0 ? sse(`retry: 0\n${event(progress, "e1")}`) : new Response(null, { status: 405 }),
    );
    expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual({
      kind: "unusable",
      message: "resuming the event stream failed (HTTP 405)",
    });
  });

  it("a stream cut off before its answer is a transport failure", async () => {
    upstream(() => {
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulls++ === 0) controller.enqueue(encoder.encode(event(progress)));
          else controller.error(new Error("connection reset"));
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    await expect(exchange(TARGET, CALL, AbortSignal.timeout(5_000))).rejects.toThrow("connection reset");
  });

  it("refuses on the answer's session a request no sink takes, then reads on", async () => {
    const asked = { id: "u-1", method: "roots/list", params: {} };
    const sent = upstream((request) =>
      request.body !== undefined && (request.body as { id?: unknown }).id === "u-1"
        ? new Response(null, { status: 202 })
        : new Response(event(asked) + event({ id: 7, result: RESULT }), {
            headers: { "content-type": "text/event-stream", "mcp-session-id": "s-2" },
          }),
    );
    expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual({
      kind: "result",
      result: RESULT,
    });
    expect(sent[1]?.body).toMatchObject({ jsonrpc: "2.0", id: "u-1", error: { code: -32601 } });
    expect(sent[1]?.headers.get("mcp-session-id")).toBe("s-2");
  });

  it("tells HTTP refusals, JSON-RPC errors and unusable answers apart", async () => {
    const cases: [Response, unknown][] = [
      [new Response("gone", { status: 404 }), { kind: "http_error", status: 404 }],
      [
        Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32000, message: "no session" } },
          { status: 400 },
        ),
        { kind: "http_error", status: 400 },
      ],
      [
        Response.json({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "bad", data: { x: 1 } } }),
        { kind: "rpc_error", code: -32602, message: "bad", data: { x: 1 } },
      ],
      [Response.json({ hello: 1 }), { kind: "unusable", message: "the answer is not a JSON-RPC response" }],
      [
        Response.json({ jsonrpc: "2.0", id: 8, result: {} }),
        { kind: "unusable", message: "the answer is not a JSON-RPC response" },
      ],
      [
        new Response("{", { headers: { "content-type": "application/json" } }),
        { kind: "unusable", message: "the answer is not JSON" },
      ],
      [
        new Response("hi", { headers: { "content-type": "text/plain" } }),
        { kind: "unusable", message: "unexpected content type text/plain" },
      ],
      [new Response(null, { status: 202 }), { kind: "unusable", message: "unexpected content type (none)" }],
    ];
    for (const [response, expected] of cases) {
      vi.restoreAllMocks();
      upstream(() => response);
      expect(await exchange(TARGET, CALL, AbortSignal.timeout(5_000))).toEqual(expected);
    }
  });
});
