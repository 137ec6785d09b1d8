// An upstream that sends its client a request in the middle of a call
// (sampling, elicitation, roots): a client whose session declared the
// capability gets it on the call's stream and its answer goes back upstream;
// any other client's call gets JSON-RPC "method not found" sent upstream at
// once, so the call ends instead of waiting out its timeout.
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { refresh } from "../api/services/harness";
import { call, callTool, connect, issuedSession, json, rawMcp, setup, type Gw } from "./harness";

const METHODS = ["sampling/createMessage", "elicitation/create", "roots/list"] as const;

async function statefulSse(): Promise<Gw> {
  const g = await setup();
  await g.upstream.mode("stateful-sse");
  const service = `/v1/workspaces/${g.ws}/services/${g.serviceUid}`;
  // Without an answer each call would end here, as upstream_timeout.
  await json(await call("PATCH", service, { key: g.writeKey, body: { timeoutMs: 10_000 } }), 200);
  return g;
}

/** A client that declares all three capabilities and answers each deterministically. */
function capable(g: Gw, onSampling?: (requestId: string | number) => Promise<void>): Promise<Client> {
  return connect(g, g.callKey, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    handlers: (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (_request, extra) => {
        await onSampling?.(extra.requestId);
        return {
          role: "assistant",
          model: "test-model",
          content: { type: "text", text: "sampled by the client" },
        };
      });
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: "accept",
        content: { ok: true },
      }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: "file:///client-root" }],
      }));
    },
  });
}

describe("upstream requests during a call", () => {
  it("a client that did not declare the capability: each is refused at once with -32601 and the call completes", async () => {
    const g = await statefulSse();
    const client = await connect(g);
    for (const method of METHODS) {
      await g.upstream.asksClient(method);
      expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({
        content: [{ type: "text", text: `hi (asked ${method}: error -32601)` }],
      });
    }
    await client.close();
  });

  it("a client that declared it gets each request on the call's stream, and its answer reaches the upstream", async () => {
    const g = await statefulSse();
    const client = await capable(g);
    const answers: Record<(typeof METHODS)[number], string> = {
      "sampling/createMessage": "sampled by the client",
      "elicitation/create": 'accept {"ok":true}',
      "roots/list": "file:///client-root",
    };
    for (const method of METHODS) {
      await g.upstream.asksClient(method);
      expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({
        content: [{ type: "text", text: `hi (asked ${method}: answered ${answers[method]})` }],
      });
    }
    await client.close();
  });

  it("only the session the request went to can answer it", async () => {
    const g = await statefulSse();
    const other = await capable(g);
    const otherSession = issuedSession(other);
    // Before answering, the first client's handler has a forged answer posted under another
    // session: were it accepted, the upstream would report the forged text.
    const client = await capable(g, async (requestId) => {
      const forged = await rawMcp(
        g,
        {
          jsonrpc: "2.0",
          id: requestId,
          result: { role: "assistant", model: "x", content: { type: "text", text: "forged" } },
        },
        { headers: { "mcp-session-id": otherSession ?? "", "mcp-protocol-version": "2025-11-25" } },
      );
      expect(forged.status).toBe(202);
    });
    await g.upstream.asksClient("sampling/createMessage");
    expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({
      content: [{ type: "text", text: "hi (asked sampling/createMessage: answered sampled by the client)" }],
    });
    await client.close();
    await other.close();
  });

  it("a tool an upstream lists only to clients that sample is indexed, and a sampling client's call is answered by its model", async () => {
    const g = await statefulSse();
    const indexed = await refresh(g.ws, g.serviceUid);
    expect(indexed.tools.map((t) => t.upstreamName)).toContain("ask_model");
    const client = await capable(g);
    expect(await callTool(client, "ask_model", { q: "hello?" })).toMatchObject({
      content: [{ type: "text", text: "model said: sampled by the client" }],
    });
    await client.close();
  });

  it("a tool the upstream runs only as a task is called as one: its elicitation reaches the client and the call gets the task's result", async () => {
    const g = await statefulSse();
    const indexed = await refresh(g.ws, g.serviceUid);
    const tool = indexed.tools.find((t) => t.upstreamName === "slow_report");
    expect(tool).toBeDefined();
    const client = await capable(g);
    const listed = (await client.listTools()).tools.find((t) => t.name === "slow_report");
    expect(listed?.execution).toEqual({ taskSupport: "required" });
    // The gateway offers no tasks, so the SDK's task-aware call falls back to a plain call.
    const messages = [];
    for await (const message of client.experimental.tasks.callToolStream({
      name: "slow_report",
      arguments: { topic: "tasks" },
    }))
      messages.push(message);
    expect(messages).toEqual([
      {
        type: "result",
        result: expect.objectContaining({ content: [{ type: "text", text: "report on tasks (accept)" }] }),
      },
    ]);
    await client.close();
  });
});
