// An upstream that sends its client a request in the middle of a call
// (sampling, elicitation, roots) gets JSON-RPC "method not found" at once:
// the gateway relays none on this path, and the call ends instead of waiting
// out its timeout.
import { describe, expect, it } from "vitest";
import { call, callTool, connect, json, setup } from "./harness";

describe("upstream requests during a call", () => {
  it("each is refused at once with -32601 and the call completes with the upstream's answer", async () => {
    const g = await setup();
    await g.upstream.mode("stateful-sse");
    const service = `/v1/workspaces/${g.ws}/services/${g.serviceUid}`;
    // Without the refusal each call would end here, as upstream_timeout.
    await json(await call("PATCH", service, { key: g.writeKey, body: { timeoutMs: 10_000 } }), 200);
    const client = await connect(g);
    for (const method of ["sampling/createMessage", "elicitation/create", "roots/list"]) {
      await g.upstream.asksClient(method);
      expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({
        content: [{ type: "text", text: `hi (asked ${method}: error -32601)` }],
      });
    }
    await client.close();
  });
});
