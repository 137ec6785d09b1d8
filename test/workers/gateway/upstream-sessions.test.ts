// A stateful upstream registered by two workspaces, and called by two clients
// of one workspace: each keeps an upstream MCP session of its own.
import { describe, expect, it } from "vitest";
import { callTool, connect, setup } from "./harness";

describe("upstream sessions", () => {
  it("two workspaces on one stateful upstream, and two client sessions in one, never share an upstream session", async () => {
    const a = await setup();
    await a.upstream.mode("stateful");
    const b = await setup({ upstream: a.upstream });
    const clients = [
      await connect(a),
      await connect(b),
      await connect(a, a.callKey, { sessionId: "client-one" }),
      await connect(a, a.callKey, { sessionId: "client-two" }),
    ];
    for (const round of ["first", "second"]) {
      for (const client of clients) {
        expect(await callTool(client, "echo", { text: round })).toMatchObject({ content: [{ text: round }] });
      }
    }
    const sessions = (await a.upstream.requests())
      .filter((request) => request.method === "tools/call")
      .map((request) => request.sessionId);
    expect(sessions).toHaveLength(2 * clients.length);
    const first = sessions.slice(0, clients.length);
    expect(new Set(first).size).toBe(clients.length);
    expect(sessions.slice(clients.length)).toEqual(first);
    for (const client of clients) await client.close();
  });
});
