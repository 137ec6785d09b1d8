// Code Mode in the hook-run logs: every record of a call made from `execute`
// has mode "code", Direct Mode's "direct"; the logs routes return the mode,
// filter by it (refusing a value outside the set), and an execution's request
// id lists the execution's own record and every call its code made.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../../../shared/logs/query";
import { SEED_ADAPTER, SUFFIX_ADAPTER } from "../adapters";
import { call, callTool, connect, deploy, json, runs, setup, type Gw } from "../harness";
import { callCode, connectCode } from "./harness";

interface Page {
  items: RunView[];
  nextCursor: string | null;
}

/** The workspace's run records through `GET …/hooks/logs?<query>`, after the pending writes landed. */
async function logs(g: Gw, query = ""): Promise<RunView[]> {
  await runs(g);
  const page = await json<Page>(
    await call("GET", `/v1/workspaces/${g.ws}/hooks/logs?${query}`, { key: g.writeKey }),
    200,
  );
  return page.items.toReversed();
}

const summary = (items: RunView[]) => items.map((r) => [r.toolName, r.stage, r.channel, r.mode, r.requestId]);

/** Which calls the records belong to, on which channel and in which mode (one line each, sorted). */
const byCall = (items: RunView[]) =>
  [...new Set(items.map((r) => `${r.requestId} ${r.channel} ${r.mode}`))].toSorted();

/** Runs `code` with `execute` and returns the answer and its request id. */
async function execute(g: Gw, code: string) {
  const client = await connectCode(g);
  const answer = await callCode(client, "execute", { code });
  await client.close();
  const requestId = answer._meta?.["rayrun/requestId"];
  if (typeof requestId !== "string") throw new Error(`no request id: ${JSON.stringify(answer)}`);
  return { answer, requestId };
}

/** One Direct Mode call; its request id is the one its run records carry. */
async function direct(g: Gw, name: string, args: Record<string, unknown>): Promise<string> {
  const client = await connect(g);
  const result = await callTool(client, name, args);
  await client.close();
  expect(result.isError).toBeFalsy();
  const requestId = result._meta?.["rayrun/requestId"];
  if (typeof requestId !== "string") throw new Error(`no request id: ${JSON.stringify(result)}`);
  return requestId;
}

describe("Code Mode in the logs", () => {
  it("an execute making a hooked call: the inner call's before and after are listed with mode code, a Direct Mode call's with mode direct", async () => {
    const g = await setup();
    await deploy(g, "search_release_notes", SEED_ADAPTER, { testArgs: { query: "x" } });
    const { answer, requestId } = await execute(
      g,
      `const found = await tools.search_release_notes({ query: "v2" });
       const echoed = await tools.echo({ text: found.items[0].title });
       return echoed.content[0].text;`,
    );
    expect(answer.isError).toBeFalsy();
    const directId = await direct(g, "search_release_notes", { query: "v3" });
    expect(directId).not.toBe(requestId);
    expect(summary(await logs(g))).toEqual([
      ["search_release_notes", "before", "active", "code", `${requestId}.1`],
      ["search_release_notes", "after", "active", "code", `${requestId}.1`],
      // The execution's own record, written when it ends: its calls hang under its request id.
      ["execute", "execute", "active", "code", requestId],
      ["search_release_notes", "before", "active", "direct", directId],
      ["search_release_notes", "after", "active", "direct", directId],
    ]);
    // The file's first compile starts esbuild-wasm in a fresh runtime: past 30 s on a loaded machine.
  }, 90_000);

  it("filters by mode on both routes, and an execution's request id lists the calls its code made", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER("!"), { testArgs: { text: "x" } });
    // A shadow revision runs beside active for calls made from code too: its record carries the mode.
    await deploy(g, "echo", SUFFIX_ADAPTER("?"), { channel: "shadow", testArgs: { text: "x" } });
    const { requestId } = await execute(
      g,
      `await tools.echo({ text: "a" }); await tools.echo({ text: "b" }); return null;`,
    );
    const directId = await direct(g, "echo", { text: "c" });

    // Active and shadow, each call's records: every one of them has the mode of the call it belongs to.
    const code = await logs(g, "mode=code");
    expect(byCall(code)).toEqual(
      [
        `${requestId} active code`,
        `${requestId}.1 active code`,
        `${requestId}.1 shadow code`,
        `${requestId}.2 active code`,
        `${requestId}.2 shadow code`,
      ].toSorted(),
    );
    const directs = await logs(g, "mode=direct");
    expect(byCall(directs)).toEqual([`${directId} active direct`, `${directId} shadow direct`]);
    expect(await logs(g)).toHaveLength(code.length + directs.length);
    // The same filter on one tool's own logs, combined with another filter.
    const target = await json<Page>(
      await call("GET", `/v1/workspaces/${g.ws}/tools/${g.tools.echo}/hook/logs?mode=code&channel=shadow`, {
        key: g.writeKey,
      }),
      200,
    );
    expect(target.items.length).toBe(code.filter((r) => r.channel === "shadow").length);
    expect(byCall(target.items)).toEqual([`${requestId}.1 shadow code`, `${requestId}.2 shadow code`]);
    // The execution's id: its own record and its calls' (children), not the Direct Mode call's; a child's id:
    // only that call's.
    const children = await logs(g, `requestId=${encodeURIComponent(requestId)}`);
    expect(new Set(children.map((r) => r.requestId))).toEqual(
      new Set([requestId, `${requestId}.1`, `${requestId}.2`]),
    );
    expect(children).toHaveLength(code.length);
    const one = await logs(g, `requestId=${encodeURIComponent(`${requestId}.2`)}`);
    expect(byCall(one)).toEqual([`${requestId}.2 active code`, `${requestId}.2 shadow code`]);
    expect(byCall(await logs(g, `requestId=${directId}`))).toEqual(byCall(directs));
  });

  it("a bad mode filter is 400 invalid_request naming the field, on both routes", async () => {
    const g = await setup();
    for (const path of [
      `/v1/workspaces/${g.ws}/hooks/logs?mode=indirect`,
      `/v1/workspaces/${g.ws}/tools/${g.tools.echo}/hook/logs?mode=CODE`,
    ]) {
      const body = await json<{ code: string; errors: { path: string; message: string }[] }>(
        await call("GET", path, { key: g.writeKey }),
        400,
      );
      expect(body.code).toBe("invalid_request");
      expect(body.errors.map((e) => e.path)).toEqual(["/mode"]);
    }
  });

  it("a row written without a mode (before the column existed) reads as direct", async () => {
    const g = await setup();
    await env.DB.prepare(
      `insert into hook_runs (id, workspace_uid, kind, target, stage, channel, outcome, request_id, duration_ms, fuel_used, at)
       values ('log_0000000000aaaaaaaaaaaa', ?, 'tool_adapter', 'tool:t', 'before', 'active', 'continue', 'old', 1, 1, '2031-01-01T00:00:00.000Z')`,
    )
      .bind(g.ws)
      .run();
    expect((await logs(g)).map((r) => [r.requestId, r.mode])).toEqual([["old", "direct"]]);
    expect(await logs(g, "mode=code")).toEqual([]);
  });
});

/** An `execute` through the endpoint, which records the execution itself beside its calls. */
const recorded = (g: Gw, code: string) => execute(g, code);

describe("the execution's own record", () => {
  it("lists the execution (kind code_mode, stage execute) and its calls under its request id, with its logs and result", async () => {
    const g = await setup();
    await deploy(g, "echo", SUFFIX_ADAPTER("!"), { testArgs: { text: "x" } });
    const code = `console.log("calling"); const r = await tools.echo({ text: "a" }); return r.content[0].text;`;
    const { requestId } = await recorded(g, code);
    const items = await logs(g, `requestId=${encodeURIComponent(requestId)}`);
    expect(items.map((r) => `${r.toolName} ${r.stage} ${r.mode} ${r.requestId}`).toSorted()).toEqual([
      `echo before code ${requestId}.1`,
      `execute execute code ${requestId}`,
    ]);
    const execution = items.find((r) => r.stage === "execute");
    expect(execution).toMatchObject({
      kind: "code_mode",
      target: "code_mode:execute",
      toolUid: null,
      outcome: "return",
      code: null,
      revisionId: null,
      durationMs: expect.any(Number),
      details: {
        arguments: { code },
        logs: [{ level: "info", message: "calling" }],
        result: "a!",
      },
    });
    expect(await logs(g, "kind=code_mode&stage=execute")).toHaveLength(1);
  });

  it("an execution that fails is recorded with its code_mode_* code, reason and logs", async () => {
    const g = await setup();
    const { answer, requestId } = await recorded(
      g,
      `console.warn("about to throw"); throw new Error("boom");`,
    );
    expect(answer.isError).toBe(true);
    const [execution] = await logs(g, "kind=code_mode");
    expect(execution).toMatchObject({
      requestId,
      mode: "code",
      stage: "execute",
      outcome: "error",
      code: "code_mode_failed",
      details: {
        reason: "hook_threw",
        message: expect.stringContaining("boom"),
        logs: [{ level: "warn", message: "about to throw" }],
      },
    });
  });
});
