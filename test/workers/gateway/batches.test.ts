// JSON-RPC batches on /mcp: refused for MCP 2025-06-18 and later, bounded to
// LIMITS.mcpBatchToolCalls tool calls for older clients, unique ids; and a
// burst of hooked calls never turns into a failure remembered for the code.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { SUFFIX_ADAPTER } from "./adapters";
import { deploy, rawMcp, setup, type Gw } from "./harness";

const echo = (id: number | string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text } },
});
const OLD = { "mcp-protocol-version": "2025-03-26" };

interface Answer {
  id: number | string | null;
  result?: { content: { type: string; text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

async function batch(g: Gw, messages: unknown[], headers: Record<string, string> = OLD) {
  const res = await rawMcp(g, messages, { headers });
  return { status: res.status, body: await res.json<Answer[] | Answer>() };
}

const texts = (answers: Answer[] | Answer) =>
  (Array.isArray(answers) ? answers : [answers])
    .map((a) => a.result?.content[0]?.text ?? `error ${a.error?.code}: ${a.error?.message}`)
    .toSorted();

describe("JSON-RPC batches on /mcp", () => {
  it("a batch from a client of MCP 2025-06-18 or later is refused before any call runs", async () => {
    const g = await setup();
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const refused = await batch(g, [echo(1, "a"), echo(2, "b")], { "mcp-protocol-version": version });
      expect(refused).toEqual({
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: expect.stringContaining("batches are not part of MCP") },
        },
      });
    }
    const initializing = await batch(
      g,
      [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
        echo(2, "b"),
      ],
      {},
    );
    expect(initializing.status).toBe(400);
    expect(await g.upstream.calls()).toEqual([]);
  });

  it(`limit: mcpBatchToolCalls — an older client's batch of ${LIMITS.mcpBatchToolCalls} tool calls runs, one more is refused whole`, async () => {
    const g = await setup();
    const atLimit = Array.from({ length: LIMITS.mcpBatchToolCalls }, (_, i) => echo(i, `t${i}`));
    const ran = await batch(g, atLimit);
    expect(ran.status).toBe(200);
    expect(texts(ran.body)).toEqual(atLimit.map((m) => m.params.arguments.text).toSorted());
    expect(await g.upstream.calls()).toHaveLength(LIMITS.mcpBatchToolCalls);

    const over = await batch(
      g,
      [...atLimit, echo("extra", "x")].map((m, i) => ({ ...m, id: 100 + i })),
    );
    expect(over).toEqual({
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringContaining(`at most ${LIMITS.mcpBatchToolCalls}`) },
      },
    });
    expect(await g.upstream.calls()).toHaveLength(LIMITS.mcpBatchToolCalls);
  });

  it("a batch with a request id twice is refused, so no call runs unanswered", async () => {
    const g = await setup();
    const refused = await batch(g, [echo(7, "a"), echo(7, "b")]);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: -32600, message: expect.stringContaining("7") } });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("a burst of hooked calls in batches leaves the code working here and in another workspace", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER("!"), { testArgs: { text: "t" } });
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: LIMITS.mcpBatchToolCalls }, (_entry, i) => echo(b * 100 + i, `b${b}-${i}`)),
    );
    const answers = await Promise.all(batches.map((messages) => batch(g, messages)));
    for (const [b, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(texts(answer.body)).toEqual(batches[b]?.map((m) => `${m.params.arguments.text}!`).toSorted());
    }
    const again = await rawMcp(g, echo(1, "after"));
    expect(texts(await again.json<Answer>())).toEqual(["after!"]);

    const other = await setup();
    await deploy(other, "echo", SUFFIX_ADAPTER("!"), { testArgs: { text: "t" } });
    const first = await rawMcp(other, echo(1, "elsewhere"));
    expect(texts(await first.json<Answer>())).toEqual(["elsewhere!"]);
  });
});
