// `execute`: the model's code calls the workspace's tools, each call one
// gateway tool call through the Direct Mode path (the five steps, run records
// under a child request id); refusals and upstream failures throw a ToolError
// the code can catch, and never reach the upstream when refused.
import { describe, expect, it } from "vitest";
import { AFTER_MARKER_ADAPTER, REJECT_ADAPTER, SEED_ADAPTER } from "../adapters";
import { call, createKey, deploy, json, runs, setup } from "../harness";
import { callCode, callRuns, connectCode, failure, run } from "./harness";

describe("execute", () => {
  it("chains two tools: a search, then an echo of its first result, each call recorded under a child request id", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const client = await connectCode(g);
    const answer = await callCode(client, "execute", {
      code: `
        const found = await tools.search_release_notes({ query: "v2" });
        console.log("found", found.items.length);
        const echoed = await tools.echo({ text: found.items[0].title });
        return { echoed: echoed.content[0].text };`,
    });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toEqual({
      result: { echoed: "Release notes matching v2" },
      logs: [{ level: "info", message: "found", data: 2 }],
    });
    // The adapter's before rewrote the public `query` into the upstream's `q`.
    expect((await g.upstream.calls()).map((c) => [c.tool, c.arguments])).toEqual([
      ["search_release_notes", { q: "v2" }],
      ["echo", { text: "Release notes matching v2" }],
    ]);
    const executionId = answer._meta?.["rayrun/requestId"];
    expect(executionId).toEqual(expect.any(String));
    // The calls' records, then the execution's own, written when it ended.
    const records = await runs(g);
    expect(records.map((r) => [r.tool_name, r.stage, r.outcome, r.request_id])).toEqual([
      ["search_release_notes", "before", "continue", `${String(executionId)}.1`],
      ["search_release_notes", "after", "return", `${String(executionId)}.1`],
      ["execute", "execute", "return", String(executionId)],
    ]);
    await client.close();
  });

  it("runs calls started together concurrently (Promise.all)", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `const all = await Promise.all(["a", "b", "c"].map((text) => tools.echo({ text })));
       return all.map((r) => r.content[0].text);`,
    );
    expect(result).toEqual(["a", "b", "c"]);
    expect(await g.upstream.calls()).toHaveLength(3);
  });

  it("a hook's rejection throws a ToolError the code catches, and never reaches the upstream", async () => {
    const g = await setup();
    await deploy(g, "echo", REJECT_ADAPTER, { testArgs: { text: "ok" } });
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `try {
         await tools.echo({ text: "bad" });
         return "not thrown";
       } catch (error) {
         return { isToolError: error instanceof ToolError, name: error.name, code: error.code, reason: error.reason, message: error.message };
       }`,
    );
    expect(result).toEqual({
      isToolError: true,
      name: "ToolError",
      code: "rejected",
      reason: "bad_text",
      message: "Echoing bad text is not allowed.",
    });
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("a refusal before dispatch (public arguments) throws too; uncaught, it fails the execution", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const caught = await run(
      client,
      `try { await tools.echo({ text: 42 }); } catch (e) { return [e.code, typeof e.requestId]; }`,
    );
    expect(caught.result).toEqual(["public_arguments_invalid", "string"]);
    const uncaught = await failure(client, `await tools.echo({ text: 42 }); return "unreachable";`);
    expect(uncaught).toMatchObject({ code: "code_mode_failed", reason: "hook_threw" });
    expect(uncaught.message).toContain("ToolError");
    expect(await g.upstream.calls()).toEqual([]);
  });

  it("an upstream tool error throws with the upstream's content, and after does not run", async () => {
    const g = await setup();
    await deploy(g, "always_fails", AFTER_MARKER_ADAPTER, { testArgs: {} });
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `try { await tools.always_fails({ reason: "boom" }); } catch (e) { return { code: e.code, message: e.message, data: e.data }; }`,
    );
    expect(result).toEqual({
      code: "upstream_tool_error",
      message: "upstream failure: boom",
      data: [{ type: "text", text: "upstream failure: boom" }],
    });
    const records = await callRuns(g);
    expect(records.map((r) => [r.stage, r.outcome, r.code])).toEqual([
      ["before", "continue", null],
      ["after", "passed", "upstream_error"],
    ]);
  });

  it("an upstream JSON-RPC error throws with its code, message and data", async () => {
    const g = await setup();
    await g.upstream.rpcError({
      code: -32042,
      message: "This tool needs your consent first.",
      data: { x: 1 },
    });
    const client = await connectCode(g);
    const { result } = await run(
      client,
      `try { await tools.echo({ text: "x" }); } catch (e) { return [e.code, e.rpcCode, e.message, e.data]; }`,
    );
    expect(result).toEqual(["upstream_error", -32042, "This tool needs your consent first.", { x: 1 }]);
  });

  it("an unknown tool throws unknown_tool", async () => {
    const g = await setup();
    const client = await connectCode(g);
    const { result } = await run(client, `try { await tools.nope({}); } catch (e) { return e.code; }`);
    expect(result).toBe("unknown_tool");
  });
});

describe("access from code", () => {
  it("a tool the key's profile blocks cannot be called from code, and is neither searched nor described", async () => {
    const g = await setup();
    await json(
      await call("PUT", `/v1/workspaces/${g.ws}/access-profiles/narrow`, {
        body: { blockedTools: ["echo"] },
      }),
      200,
    );
    const { key } = await createKey(g.ws, { scopes: ["tools:call"], actor: "narrow", profile: "narrow" });
    const client = await connectCode(g, key);
    const { result } = await run(
      client,
      `try { await tools.echo({ text: "x" }); } catch (e) { return [e.code, e.reason]; }`,
    );
    expect(result).toEqual(["access_blocked", "tool_blocked"]);
    expect(await g.upstream.calls()).toEqual([]);
    const searched = await callCode(client, "search_tools", { query: "" });
    const names = (searched.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain("search_release_notes");
    expect(names).not.toContain("echo");
    const described = await callCode(client, "describe_tools", { names: ["echo", "search_release_notes"] });
    const body = described.structuredContent as { declarations: string; missing: string[] };
    expect(body.missing).toEqual(["echo"]);
    expect(body.declarations).toContain("search_release_notes(args:");
    expect(body.declarations).not.toContain("echo(args:");
    // The default profile's key still calls it.
    const open = await connectCode(g);
    expect((await run(open, `return (await tools.echo({ text: "y" })).content[0].text;`)).result).toBe("y");
  });
});
