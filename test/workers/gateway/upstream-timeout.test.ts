// A tool call whose upstream answers slower than its service's timeout is
// refused with upstream_timeout, logged, and the next call under a longer
// timeout goes through.
import { describe, expect, it } from "vitest";
import { call, callTool, connect, json, refusalOf, runs, setup } from "./harness";

describe("upstream timeout", () => {
  it("a call slower than the service's timeoutMs is refused with upstream_timeout and logged", async () => {
    const g = await setup();
    const service = `/v1/workspaces/${g.ws}/services/${g.serviceUid}`;
    await json(await call("PATCH", service, { key: g.writeKey, body: { timeoutMs: 200 } }), 200);
    await g.upstream.delay(800);
    const client = await connect(g);

    const refused = await callTool(client, "echo", { text: "slow" });
    expect(refusalOf(refused)).toMatchObject({
      code: "upstream_timeout",
      message: "The upstream did not answer within 200 ms.",
    });
    const requestId = refused._meta?.["rayrun/requestId"];
    const logged = (await runs(g)).filter((row) => row.request_id === requestId);
    expect(logged.map((row) => `${row.stage} ${row.outcome} ${row.code}`)).toEqual([
      "pipeline refused upstream_timeout",
    ]);

    await json(await call("PATCH", service, { key: g.writeKey, body: { timeoutMs: 5000 } }), 200);
    expect(await callTool(client, "echo", { text: "patient" })).toMatchObject({
      content: [{ text: "patient" }],
    });
    await client.close();
  });
});
