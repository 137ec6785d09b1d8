// The upstream dispatch: one handshake per upstream and isolate, then a single
// POST per call; expired sessions and SSE answers; errors mapped to outcomes.
import { beforeEach, describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import {
  clearUpstreamSessions,
  dispatchToolCall,
  type UpstreamTarget,
} from "../../../../workers/gateway/tool-call/dispatch";

const OWNER = { workspaceUid: "ws_dispatch", serviceUid: "svc_dispatch" };
let counter = 0;
const upstreamId = () => `dispatch-${Date.now()}-${counter++}`;
const mcpUrl = (id: string) => `http://upstream.test/${id}/mcp`;

async function control(id: string, action: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`http://upstream.test/${id}/${action}`, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return response.json();
}

const methods = async (id: string) =>
  ((await control(id, "_requests")) as { method: string; sessionId: string | null }[]).map((r) => r.method);

beforeEach(() => clearUpstreamSessions());

const target = (
  url: string,
  bearerToken: string | null,
  timeoutMs: number,
  owner = OWNER,
): UpstreamTarget => ({
  url,
  bearerToken,
  timeoutMs,
  owner,
});

describe("dispatch", () => {
  it("handshakes once per upstream, then sends each call as a single tools/call POST", async () => {
    const id = upstreamId();
    for (const text of ["one", "two", "three"]) {
      const outcome = await dispatchToolCall(target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs), "echo", {
        text,
      });
      expect(outcome).toEqual({ kind: "result", result: { content: [{ type: "text", text }] } });
    }
    expect(await methods(id)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/call",
      "tools/call",
      "tools/call",
    ]);
    expect(await control(id, "_calls")).toHaveLength(3);
  });

  it("keeps a stateful upstream's session and opens a new one when the upstream forgot it, running the call once", async () => {
    const id = upstreamId();
    await control(id, "_mode", { mode: "stateful" });
    expect(
      (await dispatchToolCall(target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs), "echo", { text: "a" }))
        .kind,
    ).toBe("result");
    expect(
      (await dispatchToolCall(target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs), "echo", { text: "b" }))
        .kind,
    ).toBe("result");
    const first = (await control(id, "_requests")) as { method: string; sessionId: string | null }[];
    expect(first.map((r) => r.method)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/call",
      "tools/call",
    ]);
    const session = first[2]?.sessionId;
    expect(session).toEqual(expect.any(String));
    expect(first[3]?.sessionId).toBe(session);

    await control(id, "_forgetSessions", {});
    expect(
      await dispatchToolCall(target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs), "echo", { text: "c" }),
    ).toEqual({
      kind: "result",
      result: { content: [{ type: "text", text: "c" }] },
    });
    const after = ((await control(id, "_requests")) as { method: string }[]).slice(4).map((r) => r.method);
    expect(after).toEqual(["tools/call", "initialize", "notifications/initialized", "tools/call"]);
    // The refused attempt never reached the tool: three calls ran, one per dispatch.
    expect(((await control(id, "_calls")) as { arguments: unknown }[]).map((c) => c.arguments)).toEqual([
      { text: "a" },
      { text: "b" },
      { text: "c" },
    ]);
  });

  it("an upstream session never crosses workspaces, services or client sessions on one URL and token", async () => {
    const id = upstreamId();
    await control(id, "_mode", { mode: "stateful" });
    const owners = [
      { workspaceUid: "ws_a", serviceUid: "svc_a" },
      { workspaceUid: "ws_b", serviceUid: "svc_b" },
      { workspaceUid: "ws_a", serviceUid: "svc_a2" },
      { workspaceUid: "ws_a", serviceUid: "svc_a", clientSession: "client-1" },
      { workspaceUid: "ws_a", serviceUid: "svc_a", clientSession: "client-2" },
    ];
    for (const round of [1, 2]) {
      for (const owner of owners) {
        const outcome = await dispatchToolCall(target(mcpUrl(id), "t", 5000, owner), "echo", {
          text: `${round}`,
        });
        expect(outcome.kind).toBe("result");
      }
    }
    const calls = ((await control(id, "_requests")) as { method: string; sessionId: string | null }[]).filter(
      (r) => r.method === "tools/call",
    );
    const sessionOf = calls.map((r) => r.sessionId);
    // Each owner opened one session and kept it for its second call; no two owners share one.
    expect(new Set(sessionOf.slice(0, owners.length)).size).toBe(owners.length);
    expect(sessionOf.slice(owners.length)).toEqual(sessionOf.slice(0, owners.length));
  });

  it("reads the answer from an SSE stream when the upstream answers with one", async () => {
    const id = upstreamId();
    await control(id, "_mode", { mode: "sse" });
    const outcome = await dispatchToolCall(
      target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs),
      "search_release_notes",
      { q: "x" },
    );
    expect(outcome).toMatchObject({
      kind: "result",
      result: { structuredContent: { items: expect.any(Array) } },
    });
  });

  it("keeps the upstream's own tool error as its result", async () => {
    const id = upstreamId();
    const outcome = await dispatchToolCall(
      target(mcpUrl(id), null, LIMITS.upstreamTimeoutMs),
      "always_fails",
      { reason: "r" },
    );
    expect(outcome).toEqual({
      kind: "result",
      result: { isError: true, content: [{ type: "text", text: "upstream failure: r" }] },
    });
  });

  it("sends the bearer token on every request", async () => {
    const id = upstreamId();
    await dispatchToolCall(target(mcpUrl(id), "secret-token", LIMITS.upstreamTimeoutMs), "echo", {
      text: "x",
    });
    const calls = (await control(id, "_calls")) as { authorization: string | null }[];
    expect(calls[0]?.authorization).toBe("Bearer secret-token");
  });

  it("an upstream slower than the timeout is a timeout, not unavailable; one within it answers", async () => {
    const id = upstreamId();
    await control(id, "_delay", { ms: 600 });
    expect(await dispatchToolCall(target(mcpUrl(id), null, 200), "echo", { text: "slow" })).toEqual({
      kind: "timeout",
      message: "The upstream did not answer within 200 ms.",
    });
    expect(await dispatchToolCall(target(mcpUrl(id), null, 3000), "echo", { text: "in time" })).toMatchObject(
      {
        kind: "result",
        result: { content: [{ text: "in time" }] },
      },
    );
  });

  it("an unreachable upstream is unavailable", async () => {
    const outcome = await dispatchToolCall(
      target("http://upstream.test/x/not-mcp", null, LIMITS.upstreamTimeoutMs),
      "echo",
      {},
    );
    expect(outcome).toMatchObject({
      kind: "unavailable",
      message: expect.stringContaining("could not be reached"),
    });
  });
});
