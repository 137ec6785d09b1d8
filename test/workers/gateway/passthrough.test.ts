// Resources, resource templates, prompts, completions and subscriptions of
// the workspace's services, passed through the MCP endpoint with the official
// SDK client on both sides: as the upstream answers them, with names
// disambiguated like tools, filtered by the key's access profile, and
// declared only when some service offers them.
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createService, newUpstream, refresh } from "../api/services/harness";
import { call, connect, createKey, json, setup } from "./harness";

const MCP_NOT_FOUND = -32601;

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("resources and prompts through the gateway", () => {
  it("one service's resources, template, prompt and completions pass through as the upstream answers them", async () => {
    const g = await setup();
    const tag = g.upstream.tag;
    const client = await connect(g);
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      completions: {},
    });

    expect((await client.listResources()).resources).toEqual([
      { uri: "demo://readme", name: "readme", title: "Read me", mimeType: "text/plain" },
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: "demo://notes/{id}", name: "note", mimeType: "text/plain" },
    ]);
    expect((await client.readResource({ uri: "demo://readme" })).contents).toEqual([
      { uri: "demo://readme", mimeType: "text/plain", text: `readme of ${tag}` },
    ]);
    expect((await client.readResource({ uri: "demo://notes/alpha" })).contents).toEqual([
      { uri: "demo://notes/alpha", text: `note alpha of ${tag}` },
    ]);

    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "summarise",
        title: "Summarise",
        description: "Summarise a topic",
        arguments: [{ name: "topic", required: true }],
      },
    ]);
    expect(await client.getPrompt({ name: "summarise", arguments: { topic: "MCP" } })).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: `summarise MCP (${tag})` } }],
    });

    const completed = await client.complete({
      ref: { type: "ref/resource", uri: "demo://notes/{id}" },
      argument: { name: "id", value: "a" },
    });
    expect(completed.completion.values).toEqual(["alpha"]);

    await client.subscribeResource({ uri: "demo://readme" });
    await client.unsubscribeResource({ uri: "demo://readme" });
    expect(await g.upstream.subscriptions()).toEqual([
      "subscribe demo://readme",
      "unsubscribe demo://readme",
    ]);
    await client.close();
  });

  it("an upstream's error reaches the client with its code and its own message", async () => {
    const g = await setup();
    const client = await connect(g);
    const error = await rpcError(client.readResource({ uri: "demo://missing" }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("MCP error -32602: Resource demo://missing not found");
    await client.close();
  });

  it("two services with the same names: each is called {service}__{name} and answers for itself", async () => {
    const g = await setup();
    const docs = newUpstream();
    const service = await createService(g.ws, { name: "docs", url: docs.url });
    await refresh(g.ws, service.uid);
    const client = await connect(g);

    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).toSorted();
    expect(prompts).toEqual(["demo__summarise", "docs__summarise"]);
    const uris = (await client.listResources()).resources.map((r) => r.uri).toSorted();
    expect(uris).toEqual(["demo__demo://readme", "docs__demo://readme"]);

    for (const [name, upstream] of [
      ["demo", g.upstream],
      ["docs", docs],
    ] as const) {
      const prompt = await client.getPrompt({ name: `${name}__summarise`, arguments: { topic: "x" } });
      expect(prompt.messages[0]?.content).toEqual({ type: "text", text: `summarise x (${upstream.tag})` });
      const read = await client.readResource({ uri: `${name}__demo://readme` });
      expect(read.contents[0]).toMatchObject({ uri: "demo://readme", text: `readme of ${upstream.tag}` });
    }
    expect((await rpcError(client.getPrompt({ name: "summarise" }))).code).toBe(-32602);

    // Templates too: a URI made from one is routed by its service prefix, and completions follow.
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.toSorted()).toEqual(["demo__demo://notes/{id}", "docs__demo://notes/{id}"]);
    const note = await client.readResource({ uri: "docs__demo://notes/beta" });
    expect(note.contents[0]).toMatchObject({ text: `note beta of ${docs.tag}` });
    const completed = await client.complete({
      ref: { type: "ref/resource", uri: "docs__demo://notes/{id}" },
      argument: { name: "id", value: "g" },
    });
    expect(completed.completion.values).toEqual(["gamma"]);
    await client.close();
  });

  it("the key's access profile filters prompts and resources by their public names", async () => {
    const g = await setup();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/narrow`, {
        body: { allowedTools: ["echo", "summarise", "demo://notes/{id}"], blockedTools: [] },
      }),
      200,
    );
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "narrow", profile: "narrow" });
    const client = await connect(g, key);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["summarise"]);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "demo://notes/{id}",
    ]);
    expect((await rpcError(client.readResource({ uri: "demo://readme" }))).code).toBe(-32002);
    await client.close();
  });

  it("capabilities are declared only when some live service offers them", async () => {
    const g = await setup();
    await g.upstream.extras(false);
    await refresh(g.ws, g.serviceUid);
    const plain = await connect(g);
    const capabilities = plain.getServerCapabilities() ?? {};
    expect(capabilities.tools).toEqual({});
    expect(capabilities.resources).toBeUndefined();
    expect(capabilities.prompts).toBeUndefined();
    expect(capabilities.completions).toBeUndefined();
    expect((await rpcError(plain.listPrompts())).code).toBe(MCP_NOT_FOUND);
    await plain.close();

    await g.upstream.extras(true);
    await refresh(g.ws, g.serviceUid);
    const rich = await connect(g);
    expect(rich.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {}, completions: {} });
    await rich.close();
  });
});
