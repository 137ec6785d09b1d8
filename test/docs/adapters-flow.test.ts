// The tutorial of docs/adapters.md, followed step by step through the API and
// the gateway with the demo upstream: the types it quotes, the test runs it
// shows (read from the page), `not_tested`, the calls and answers it shows,
// the shadow comparison, promotion and rollback; then the approval and
// redaction adapters through the gateway, as an agent meets them.
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  callTool,
  connect,
  deploy,
  json,
  rawMcp,
  refusalOf,
  runs,
  setup,
  type Gw,
} from "../workers/gateway/harness";
import { warmCompiler } from "./harness";
import { section, snippet, snippetJson, snippetObject } from "./snippets";

beforeAll(warmCompiler, 180_000);

const TOOL = "search_release_notes";

interface TestRun {
  ok: boolean;
  outcome?: unknown;
  code?: string;
  message?: string;
  logs: { level: string; message: string }[];
}

interface RunView {
  stage: string;
  channel: string;
  outcome: string;
  requestId: string;
  shadowDiffered: boolean | null;
  details: { result?: unknown } | null;
}

/** One `npx rayrun hooks test …` line of the page and the `# ok: …` / `# failed: …` line under it. */
interface Transcript {
  stage: "before" | "after";
  body: { arguments?: unknown; result?: unknown };
  printed: string;
}

function transcript(markdown: string): Transcript[] {
  const command =
    /^npx rayrun hooks test --tool \S+ --stage (before|after) --(arguments|result) '([^']*)'\n# (.*)$/gm;
  return [...markdown.matchAll(command)].map(([, stage = "", flag = "", value = "", printed = ""]) => ({
    stage: stage === "after" ? "after" : "before",
    body: { [flag]: JSON.parse(value) as unknown },
    printed,
  }));
}

/** What `rayrun hooks test` prints first for a run. */
const printed = (run: TestRun) =>
  run.ok ? `ok: ${JSON.stringify(run.outcome)}` : `failed: ${run.code}: ${run.message}`;

/** A gateway answer as the page shows it: without the call's request id, which differs every call. */
function withoutRequestId(answer: { result?: { _meta?: Record<string, unknown> } }) {
  const meta = answer.result?._meta;
  if (meta !== undefined) {
    delete meta["rayrun/requestId"];
    if (Object.keys(meta).length === 0) delete answer.result?._meta;
  }
  return answer;
}

async function mcp(g: Gw, body: unknown) {
  const res = await rawMcp(g, body);
  return json<{ result?: { _meta?: Record<string, unknown>; structuredContent?: unknown } }>(res, 200);
}

describe("the tutorial", () => {
  it("types, save, test, deploy, call, shadow, promote, roll back", async () => {
    const g = await setup();
    const hook = `/v1/workspaces/${g.ws}/tools/${g.tools[TOOL]}/hook`;
    const writer = { key: g.writeKey };

    // 2. The types quote the tool's arguments and result.
    const typesAnswer = await call("GET", `${hook}/types`, writer);
    expect(typesAnswer.headers.get("content-type")).toMatch(/^application\/typescript/);
    const types = new TextDecoder().decode(await typesAnswer.arrayBuffer()).replace(/\s+/g, " ");
    expect(types).toContain("type Args = { q: string; [key: string]: unknown; };");
    expect(types).toContain("type Result = { items: { title: string; score: number; }[]; };");

    const save = async (config: string, note: string) => {
      const etag = (await call("GET", hook, writer)).headers.get("etag") ?? "";
      const body = { source: snippet("adapters/search.ts"), config: snippetObject(config), note };
      const saved = await call("PUT", `${hook}/draft`, { ...writer, body, headers: { "if-match": etag } });
      return (await json<{ version: number }>(saved, 200)).version;
    };
    const deployVersion = (version: number, channel: "active" | "shadow") =>
      call("POST", `${hook}/deployments`, { ...writer, body: { version, channel } });

    // 4. Save; a version without a successful test run cannot be deployed.
    expect(await save("adapters/search.config.json", "first")).toBe(1);
    const untested = await json<{ code: string }>(await deployVersion(1, "active"), 409);
    expect(untested.code).toBe("not_tested");

    // The page's test runs print what it shows.
    const runsShown = transcript(section("adapters", "## 4. Save and test it"));
    expect(runsShown.length).toBeGreaterThanOrEqual(4);
    for (const shown of runsShown) {
      const run = await json<TestRun>(
        await call("POST", `${hook}/test`, { ...writer, body: { stage: shown.stage, ...shown.body } }),
        200,
      );
      expect(printed(run)).toBe(shown.printed);
    }
    const logged = await json<TestRun>(
      await call("POST", `${hook}/test`, { ...writer, body: { stage: "before", arguments: { query: "x" } } }),
      200,
    );
    expect(logged.logs).toMatchObject([{ level: "info", message: "searching" }]);

    // 5. Deploy; agents see the public contract and get the answers the page shows.
    await json(await deployVersion(1, "active"), 201);
    const client = await connect(g);
    const listed = (await client.listTools()).tools.find((tool) => tool.name === TOOL);
    expect(listed?.description).toBe("Search the release notes. Returns the matching releases, best first.");
    expect(listed?.inputSchema).toMatchObject({
      required: ["query"],
      properties: { query: { type: "string" } },
    });
    await client.close();

    const answer = await mcp(g, snippetJson("adapters/call.json"));
    const requestId = answer.result?._meta?.["rayrun/requestId"];
    expect(requestId).toEqual(expect.any(String));
    expect(withoutRequestId(answer)).toEqual(snippetJson("adapters/call.answer.json"));
    expect(await mcp(g, snippetJson("adapters/blank-call.json")).then(withoutRequestId)).toEqual(
      snippetJson("adapters/blank-call.answer.json"),
    );
    // The upstream got `q` once: the blank query never reached it.
    expect(await g.upstream.calls()).toEqual([
      { tool: TOOL, arguments: { q: "workers" }, authorization: null },
    ]);
    await runs(g);
    const callRuns = await json<{ items: RunView[] }>(
      await call("GET", `${hook}/logs?requestId=${String(requestId)}`, writer),
      200,
    );
    expect(callRuns.items.map((r) => `${r.stage} ${r.channel} ${r.outcome}`).toSorted()).toEqual([
      "after active return",
      "before active continue",
    ]);

    // 6. A shadow revision runs on the same calls without changing them.
    expect(await save("adapters/search.shadow.config.json", "minScore 0.3")).toBe(2);
    const tested = await json<TestRun>(
      await call("POST", `${hook}/test`, {
        ...writer,
        body: { stage: "before", arguments: { query: "workers" }, version: 2 },
      }),
      200,
    );
    expect(tested.ok).toBe(true);
    await json(await deployVersion(2, "shadow"), 201);
    const shadowed = await mcp(g, snippetJson("adapters/call.json"));
    const shadowedId = String(shadowed.result?._meta?.["rayrun/requestId"]);
    expect(withoutRequestId(shadowed)).toEqual(snippetJson("adapters/call.answer.json"));
    await runs(g);
    const shadowRuns = await json<{ items: RunView[] }>(
      await call("GET", `${hook}/logs?channel=shadow&requestId=${shadowedId}`, writer),
      200,
    );
    const byStage = Object.fromEntries(shadowRuns.items.map((r) => [r.stage, r]));
    expect(byStage.before?.shadowDiffered).toBe(false);
    expect(byStage.after?.shadowDiffered).toBe(true);
    expect(byStage.after?.details?.result).toEqual({
      items: [
        { title: "Release notes matching workers", score: 0.9 },
        { title: "Older release", score: 0.4 },
      ],
    });

    // Promote version 2, then drop the shadow pointer.
    await json(await deployVersion(2, "active"), 200);
    const promoted = await mcp(g, snippetJson("adapters/call.json"));
    expect(promoted.result?.structuredContent).toEqual(byStage.after?.details?.result);
    const dropped = await json<{ dropped: string | null }>(
      await call("DELETE", `${hook}/shadow`, writer),
      200,
    );
    expect(dropped.dropped).toEqual(expect.any(String));

    // 7. Roll back to version 1's revision: no new test needed.
    const revisions = await json<{ items: { id: string; version: number }[] }>(
      await call("GET", `${hook}/revisions`, writer),
      200,
    );
    const first = revisions.items.find((revision) => revision.version === 1);
    expect(first).toBeDefined();
    await json(await call("POST", `${hook}/rollback`, { ...writer, body: { revision: first?.id } }), 200);
    expect(withoutRequestId(await mcp(g, snippetJson("adapters/call.json")))).toEqual(
      snippetJson("adapters/call.answer.json"),
    );
  });
});

describe("approval.ts through the gateway", () => {
  it("holds the call for approval; the approved repeat sends the stored call once", async () => {
    const g = await setup();
    await deploy(g, "echo", snippet("adapters/approval.ts"), { testArgs: { text: "hi" } });
    const client = await connect(g);
    const args = { text: "Forward the invoice to ada@example.com" };
    const held = refusalOf(await callTool(client, "echo", args));
    expect(held).toEqual({
      code: "approval_required",
      message: "The text contains an email address; a person must approve sending it.",
      approvalId: expect.any(String),
    });
    expect(await g.upstream.calls()).toEqual([]);

    await json(
      await call("POST", `/v1/workspaces/${g.ws}/approvals/${held.approvalId}/approve`, { key: g.writeKey }),
      200,
    );
    const meta = { "rayrun/approvalId": held.approvalId };
    const repeated = await callTool(client, "echo", args, meta);
    expect(repeated.isError).toBeFalsy();
    expect(repeated.content).toEqual([{ type: "text", text: args.text }]);
    expect(refusalOf(await callTool(client, "echo", args, meta)).code).toBe("approval_used");
    expect(await g.upstream.calls()).toEqual([{ tool: "echo", arguments: args, authorization: null }]);
  });
});

describe("redact.ts through the gateway", () => {
  it("the agent reads echo's text with the digit runs redacted", async () => {
    const g = await setup();
    await deploy(g, "echo", snippet("adapters/redact.ts"), {
      testResult: { content: [{ type: "text", text: "1234" }] },
    });
    const client = await connect(g);
    const result = await callTool(client, "echo", { text: "card 4111 1111 1111 1111" });
    expect(result.content).toEqual([
      { type: "text", text: "card [redacted] [redacted] [redacted] [redacted]" },
    ]);
  });
});
