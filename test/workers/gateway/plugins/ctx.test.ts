// The `ctx` plugins' tool.execute.before / tool.execute.after receive on the
// MCP tool path, as production sends it: a plugin echoes the ctx it saw into
// the call, an official-SDK client calls through `/mcp/{ws}`.
import { describe, expect, it } from "vitest";
import { deployPlugin } from "../../../shared/plugins/pipeline-harness";
import { callTool, connect, issuedSession, rawMcp, setup, type Gw } from "../harness";

const PROBE = { hook: "tool.execute.before" as const, input: { toolID: "probe", args: {} } };

/** before: `echo`'s text becomes the ctx it saw; after: the output becomes `{ output, ctx }`. */
const CTX_ECHO = `
export default {
  "tool.execute.before": (input: { toolID: string; args: Record<string, unknown>; ctx?: unknown }) =>
    input.toolID === "echo"
      ? { ...input, args: { ...input.args, text: JSON.stringify(input.ctx ?? null) } }
      : undefined,
  "tool.execute.after": (input: { toolID: string; result: { output: string }; ctx?: unknown }) =>
    input.toolID === "probe"
      ? undefined
      : {
          ...input,
          result: { ...input.result, output: JSON.stringify({ output: input.result.output, ctx: input.ctx ?? null }) },
        },
};
`;

/** A plugin tool; its observing hook lets a test run of the version complete (deploying needs one). */
const GREETER = `
export default {
  "tool.execute.before": () => undefined,
  tool: () => [
    {
      id: "greet",
      description: "Greets someone",
      parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      async execute(args: { name: string }) {
        return { title: "greet", output: "Hello, " + args.name };
      },
    },
  ],
};
`;

interface Ctx {
  requestId: string;
  workspaceUid: string;
  calledAt: string;
  loop?: string;
  sessionId?: string;
}

/** The plugin's echo: `after` saw `ctx`, and for `echo` the upstream returned what `before` saw. */
function echoed(result: { content: unknown[] }): { output: string; ctx: Ctx } {
  const [block] = result.content;
  if (typeof block !== "object" || block === null || !("text" in block) || typeof block.text !== "string") {
    throw new Error(`no text content: ${JSON.stringify(result)}`);
  }
  return JSON.parse(block.text) as { output: string; ctx: Ctx };
}

async function ctxWorkspace(): Promise<Gw> {
  const g = await setup();
  await deployPlugin({ ws: g.ws, key: g.writeKey }, "ctx-echo", CTX_ECHO, { probe: PROBE });
  return g;
}

function expectRecentIso(calledAt: string, from: number, to: number): void {
  expect(new Date(calledAt).toISOString()).toBe(calledAt);
  expect(Date.parse(calledAt)).toBeGreaterThanOrEqual(from - 1000);
  expect(Date.parse(calledAt)).toBeLessThanOrEqual(to + 1000);
}

describe("plugins' tool.execute ctx on the MCP path", () => {
  it("before and after get the call's requestId, workspaceUid, calledAt and the session the gateway issued; no loop when none was sent", async () => {
    const g = await ctxWorkspace();
    const client = await connect(g);
    const from = Date.now();
    const result = await callTool(client, "echo", { text: "hi" });
    const to = Date.now();
    expect(result.isError).toBeFalsy();
    const requestId = result._meta?.["rayrun/requestId"];
    expect(requestId).toEqual(expect.any(String));
    const { output, ctx: after } = echoed(result);
    const before = JSON.parse(output) as Ctx;
    const sessionId = issuedSession(client);
    expect(sessionId).toMatch(/^g1\./);
    expect(after).toEqual({ requestId, workspaceUid: g.ws, calledAt: expect.any(String), sessionId });
    expectRecentIso(after.calledAt, from, to);
    // One call, one ctx: before saw the same.
    expect(before).toEqual(after);
    expect((await g.upstream.calls()).map((c) => c.arguments)).toEqual([{ text: JSON.stringify(before) }]);
  });

  it("the client's x-rayrun-loop and MCP session id are passed on", async () => {
    const g = await ctxWorkspace();
    const client = await connect(g, g.callKey, {
      headers: { "x-rayrun-loop": "research" },
      sessionId: "sess-42",
    });
    const result = await callTool(client, "echo", { text: "hi" });
    const { ctx } = echoed(result);
    expect(ctx).toMatchObject({
      requestId: result._meta?.["rayrun/requestId"],
      workspaceUid: g.ws,
      loop: "research",
      sessionId: "sess-42",
    });
  });

  it("a plugin tool's call passes ctx to tool.execute.after too", async () => {
    const g = await ctxWorkspace();
    await deployPlugin({ ws: g.ws, key: g.writeKey }, "greeter", GREETER, { probe: PROBE });
    const client = await connect(g);
    const from = Date.now();
    const result = await callTool(client, "greet", { name: "Ada" });
    const { output, ctx } = echoed(result);
    expect(output).toBe("Hello, Ada");
    expect(ctx).toEqual({
      requestId: result._meta?.["rayrun/requestId"],
      workspaceUid: g.ws,
      calledAt: expect.any(String),
      sessionId: issuedSession(client),
    });
    expectRecentIso(ctx.calledAt, from, Date.now());
  });

  it("a malformed x-rayrun-loop is refused before the protocol starts", async () => {
    const g = await setup();
    const res = await rawMcp(
      g,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
      { headers: { "x-rayrun-loop": "not a loop!" } },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "invalid_request" });
    expect(await g.upstream.calls()).toEqual([]);
  });
});
