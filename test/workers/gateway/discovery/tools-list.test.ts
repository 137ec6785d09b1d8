// What an upstream's tools/list says beside a tool's definition — title,
// annotations, execution, _meta — reaches clients as listed, a public contract
// replacing only description and schemas; it is stored with the indexed tool
// without a review, and a destructive tool's risk defaults to high.
import { describe, expect, it } from "vitest";
import { refresh } from "../../api/services/harness";
import { SEED_ADAPTER } from "../adapters";
import { call, connect, deploy, json, setup } from "../harness";

const SEARCH_LISTING = {
  title: "Search release notes",
  annotations: { readOnlyHint: true, openWorldHint: false },
  execution: { taskSupport: "optional" },
  _meta: { "example.test/owner": "docs-team" },
};

describe("tool listing metadata", () => {
  it("passes title, annotations, execution and _meta through tools/list, under a public contract too", async () => {
    const g = await setup();
    await g.upstream.listing("search_release_notes", SEARCH_LISTING);
    await g.upstream.listing("always_fails", { title: "Fails", annotations: { destructiveHint: true } });
    const refreshed = await refresh(g.ws, g.serviceUid);
    // Outside the definition hash: nothing to review.
    expect(refreshed.changed).toEqual([]);
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });

    const client = await connect(g);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search_release_notes).toMatchObject({
      ...SEARCH_LISTING,
      description: "Search public release notes",
      inputSchema: { properties: { query: { type: "string" } } },
    });
    expect(byName.always_fails).toMatchObject({ title: "Fails", annotations: { destructiveHint: true } });
    expect(byName.echo?.title).toBeUndefined();
    await client.close();
  });

  it("stores title and annotations with the tool; a destructive tool's risk defaults to high", async () => {
    const g = await setup();
    await g.upstream.listing("always_fails", { title: "Fails", annotations: { destructiveHint: true } });
    await refresh(g.ws, g.serviceUid);
    const tool = (name: string) => `/v1/workspaces/${g.ws}/tools/${g.tools[name]}`;
    expect(await json(await call("GET", tool("always_fails"), { key: g.writeKey }), 200)).toMatchObject({
      title: "Fails",
      annotations: { destructiveHint: true },
    });
    expect(await json(await call("GET", tool("echo"), { key: g.writeKey }), 200)).toMatchObject({
      title: null,
      annotations: null,
    });
    const risk = async (name: string) =>
      (await json<{ risk: string }>(await call("GET", `${tool(name)}/gateway`, { key: g.writeKey }), 200))
        .risk;
    expect(await risk("always_fails")).toBe("high");
    expect(await risk("echo")).toBe("medium");
    // An explicit setting still wins.
    await json(await call("PUT", `${tool("always_fails")}/gateway`, { body: { risk: "low" } }), 200);
    expect(await risk("always_fails")).toBe("low");
  });
});
