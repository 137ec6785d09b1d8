// Progress and logging through the gateway: the client's progress token goes
// upstream with the call, and the upstream's progress and log notifications
// reach a client that asked for progress, on the call's own stream, before
// the result.
import {
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { call, callTool, connect, json, rawMcp, runs, setup } from "./harness";

describe("progress and log notifications", () => {
  it("the official client's onprogress and log handler see the upstream's notifications; the result is unchanged", async () => {
    const g = await setup();
    await g.upstream.mode("sse");
    await g.upstream.chatty(true);
    const client = await connect(g);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    const progress: unknown[] = [];
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result).toMatchObject({ content: [{ type: "text", text: "hi" }] });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    expect(logs).toEqual([{ level: "info", logger: "echo", data: "echoing hi" }]);
    await client.close();
  });

  it("without a progress token, a client that takes a stream still gets the upstream's log and list-changed notifications", async () => {
    const g = await setup();
    await g.upstream.mode("sse");
    await g.upstream.chatty(true);
    const client = await connect(g);
    const seen: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push(`log ${String(n.params.data)}`);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      seen.push("resources changed");
    });
    expect(await callTool(client, "echo", { text: "hi" })).toMatchObject({ content: [{ text: "hi" }] });
    expect(seen).toEqual(["log echoing hi", "resources changed"]);
    await client.close();
  });

  it("a call with nothing to relay is answered as JSON, even to a client that takes a stream", async () => {
    const g = await setup();
    await g.upstream.mode("sse");
    const res = await rawMcp(g, {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "plain" }, _meta: { progressToken: "p-2" } },
    });
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toMatchObject({ id: 6, result: { content: [{ text: "plain" }] } });
  });

  it("an upstream that closes its stream before answering is resumed with Last-Event-ID, and the call gets the answer", async () => {
    const g = await setup();
    await g.upstream.mode("stateful-sse");
    await g.upstream.closesStream(true);
    const client = await connect(g);
    expect(await callTool(client, "echo", { text: "resumed" })).toMatchObject({
      content: [{ type: "text", text: "resumed" }],
    });
    await client.close();
  });

  it("a client that accepts only JSON gets the result alone, as JSON, even when it sends a progress token", async () => {
    const g = await setup();
    await g.upstream.mode("sse");
    await g.upstream.chatty(true);
    const res = await rawMcp(
      g,
      {
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "json" }, _meta: { progressToken: "p-1" } },
      },
      { headers: { accept: "application/json" } },
    );
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toMatchObject({ id: 5, result: { content: [{ text: "json" }] } });
  });

  it("tools/list_changed from the upstream during a call re-indexes the service after the response, with review", async () => {
    const g = await setup();
    await g.upstream.mode("sse");
    const tool = `/v1/workspaces/${g.ws}/tools/${g.tools.echo}`;
    expect(await json(await call("GET", tool, { key: g.writeKey }), 200)).toMatchObject({
      reviewState: "accepted",
    });
    await g.upstream.changeOnCall();
    const client = await connect(g);
    expect(await callTool(client, "echo", { text: "x" })).toMatchObject({ content: [{ text: "x" }] });
    await runs(g); // waits for the work after the response
    // The v2 definition of echo differs from the accepted one: it waits for review, as after …/refresh.
    expect(await json(await call("GET", tool, { key: g.writeKey }), 200)).toMatchObject({
      reviewState: "review_required",
      pendingDefinition: { description: "Echo the text back, louder" },
    });
    await client.close();
  });
});
