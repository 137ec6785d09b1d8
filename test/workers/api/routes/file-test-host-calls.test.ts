// The file test console answers a hook's rayrun.lambda and rayrun.model calls
// from the body's `hostCalls` mocks, in order, and never from a real
// capability: no deployed lambda runs and no provider is contacted.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../../../dev/provider/server";
import { call, expectProblem, json } from "../../../helpers/api";
import { setConfig } from "../../../helpers/files";
import { putSecret } from "../../gateway/harness";
import { fakeProviders } from "../../gateway/llm-harness";
import {
  deployFile,
  fileFixture,
  fileUrl,
  saveAndTest,
  saveFile,
  testFile,
  type FileFixture,
  type TestRun,
} from "./files-harness";

interface MockedRun extends TestRun {
  hostCalls: { used: number; unused: number; unmatched: number };
}

const HOOK_PATH = "lib/hook.ts";
const LOOKUP = { source: "lib/retriever.ts:find", args: { q: "pricing" } };
const QUESTION = { provider: "openai", request: { messages: [{ role: "user", content: "hi" }] } };
const COMPLETION = { choices: [{ message: { role: "assistant", content: "mocked answer" } }] };

// Each export makes the host calls its name says; the lookups send `input.args` when given.
const HOOK = `
type Completion = { choices: { message: { content: string } }[] };
const LOOKUP = ${JSON.stringify(LOOKUP)};
const QUESTION = ${JSON.stringify(QUESTION)};

export async function ask() {
  const answer = await rayrun.model<Completion>(QUESTION);
  return { said: answer.choices[0].message.content };
}

export async function askTwice() {
  await rayrun.model(QUESTION);
  return rayrun.model(QUESTION);
}

export async function lookUp(input: { args?: unknown }) {
  return rayrun.lambda(input.args === undefined ? LOOKUP : { ...LOOKUP, args: input.args });
}

export async function lookUpCaught(input: { args?: unknown }) {
  try {
    return { found: await lookUp(input) };
  } catch (error) {
    return { caught: (error as Error).message };
  }
}

export async function lookUpThenAsk() {
  const found = await rayrun.lambda(LOOKUP);
  const answer = await rayrun.model(QUESTION);
  return { found, answer };
}

// The same calls under the published names (adf.* is rayrun.*).
export async function lookUpThenAskByAlias() {
  const found = await adf.sys_lambda(LOOKUP);
  const answer = await adf.model_invoke(QUESTION);
  return { found, answer };
}

export function pure() {
  return "no host calls";
}
`;

async function hookFixture(): Promise<FileFixture> {
  const f = await fileFixture();
  await saveFile(f, HOOK_PATH, HOOK);
  return f;
}

const run = async (f: FileFixture, name: string, hostCalls?: unknown, input: unknown = {}) =>
  (await testFile(f, HOOK_PATH, {
    export: name,
    input,
    ...(hostCalls === undefined ? {} : { hostCalls }),
  })) as MockedRun;

const testRunCount = async (ws: string) =>
  (
    await env.DB.prepare("select count(*) as n from hook_test_runs where workspace_uid = ?")
      .bind(ws)
      .first<{ n: number }>()
  )?.n;

describe("file test console host-call mocks", () => {
  it("hands a mocked rayrun.model result to the hook, whose return reflects it", async () => {
    const f = await hookFixture();
    const answered = await run(f, "ask", [{ name: "model", args: QUESTION, result: COMPLETION }]);
    expect(answered).toMatchObject({
      ok: true,
      value: { said: "mocked answer" },
      hostCalls: { used: 1, unused: 0, unmatched: 0 },
    });
  });

  it("rejects with a mocked error: a hook that catches it sees the message, one that does not fails", async () => {
    const f = await hookFixture();
    const failing = [{ name: "lambda", error: "retrieval is down" }];
    const caught = await run(f, "lookUpCaught", failing);
    expect(caught).toMatchObject({ ok: true, value: { caught: "retrieval is down" } });
    expect(caught.hostCalls).toEqual({ used: 1, unused: 0, unmatched: 0 });

    const uncaught = await run(f, "lookUp", failing);
    expect(uncaught).toMatchObject({
      ok: false,
      code: "hook_threw",
      message: expect.stringContaining("retrieval is down"),
    });
  });

  it("answers calls in order: the n-th call takes the n-th mock, and its name must match", async () => {
    const f = await hookFixture();
    const found = { hits: ["doc about pricing"] };
    const inOrder = await run(f, "lookUpThenAsk", [
      { name: "lambda", result: found },
      { name: "model", result: COMPLETION },
    ]);
    expect(inOrder).toMatchObject({ ok: true, value: { found, answer: COMPLETION } });

    const swapped = await run(f, "lookUpThenAsk", [
      { name: "model", result: COMPLETION },
      { name: "lambda", result: found },
    ]);
    expect(swapped.ok).toBe(false);
    expect(swapped.message).toContain(
      'rayrun.lambda call 1 does not match hostCalls[0]: expected a "model" call',
    );
    expect(swapped.hostCalls).toEqual({ used: 0, unused: 1, unmatched: 1 });
  });

  it("answers adf.sys_lambda and adf.model_invoke from the same mocks, matched the same way, as rayrun's calls", async () => {
    const f = await hookFixture();
    const found = { hits: ["doc about pricing"] };
    const mocks = [
      { name: "lambda", args: LOOKUP, result: found },
      { name: "model", args: QUESTION, result: COMPLETION },
    ];
    const byAlias = await run(f, "lookUpThenAskByAlias", mocks);
    expect(byAlias).toMatchObject({
      ok: true,
      value: { found, answer: COMPLETION },
      hostCalls: { used: 2, unused: 0, unmatched: 0 },
    });
    expect(byAlias.value).toStrictEqual((await run(f, "lookUpThenAsk", mocks)).value);

    const swapped = await run(f, "lookUpThenAskByAlias", mocks.toReversed());
    expect(swapped.ok).toBe(false);
    expect(swapped.message).toContain(
      'rayrun.lambda call 1 does not match hostCalls[0]: expected a "model" call',
    );
    expect(swapped.hostCalls).toEqual({ used: 0, unused: 1, unmatched: 1 });
  });

  it("matches args as JSON whatever the key order, and names both sides when they differ", async () => {
    const f = await hookFixture();
    const reordered = { args: { q: "pricing" }, source: "lib/retriever.ts:find" };
    const matched = await run(f, "lookUp", [{ name: "lambda", args: reordered, result: [1] }]);
    expect(matched).toMatchObject({ ok: true, value: [1] });

    const refused = await run(f, "lookUpCaught", [{ name: "lambda", args: reordered, result: [1] }], {
      args: { q: "refunds" },
    });
    expect(refused).toMatchObject({
      ok: true,
      value: {
        caught:
          'rayrun.lambda call 1 does not match hostCalls[0]: expected args {"args":{"q":"pricing"},"source":"lib/retriever.ts:find"} got {"args":{"q":"refunds"},"source":"lib/retriever.ts:find"}',
      },
    });
    expect(refused.hostCalls).toEqual({ used: 0, unused: 0, unmatched: 1 });
  });

  it("rejects a call with no mock left, saying what to add, and the run fails", async () => {
    const f = await hookFixture();
    const short = await run(f, "askTwice", [{ name: "model", result: COMPLETION }]);
    expect(short).toMatchObject({
      ok: false,
      code: "hook_threw",
      message: expect.stringContaining(
        'rayrun.model call 2 has no mock: add { "name": "model", "result": … } to hostCalls',
      ),
    });
    expect(short.hostCalls).toEqual({ used: 1, unused: 0, unmatched: 1 });
  });

  it("reports the mocks no call reached, and zeros for a run without host calls", async () => {
    const f = await hookFixture();
    const extra = await run(f, "ask", [
      { name: "model", result: COMPLETION },
      { name: "model", result: COMPLETION },
      { name: "lambda", error: "never reached" },
    ]);
    expect(extra).toMatchObject({ ok: true, hostCalls: { used: 1, unused: 2, unmatched: 0 } });
    expect(await run(f, "pure")).toMatchObject({
      ok: true,
      value: "no host calls",
      hostCalls: { used: 0, unused: 0, unmatched: 0 },
    });
  });

  it("never runs a deployed lambda or contacts the provider, even with both configured and the gate on", async () => {
    const f = await fileFixture();
    const provider = crypto.randomUUID();
    await putSecret(f.ws, "provider-key", "sk-provider-secret");
    await setConfig(f, { providers: fakeProviders(provider), code_execution: { sys_lambda: true } });
    await saveAndTest(
      f,
      "lib/retriever.ts",
      `export function find() { return "real"; }\nexport function main() { return 1; }`,
    );
    await deployFile(f, "lib/retriever.ts", 1, "active");
    await saveFile(f, HOOK_PATH, HOOK);

    const mocked = await run(f, "lookUpThenAsk", [
      { name: "lambda", result: "mocked" },
      { name: "model", result: COMPLETION },
    ]);
    expect(mocked).toMatchObject({ ok: true, value: { found: "mocked", answer: COMPLETION } });
    const unmocked = await run(f, "ask");
    expect(unmocked).toMatchObject({ ok: false, message: expect.stringContaining("call 1 has no mock") });
    const unmockedLambda = await run(f, "lookUp");
    expect(unmockedLambda).toMatchObject({
      ok: false,
      message: expect.stringContaining("call 1 has no mock"),
    });

    const received = async () =>
      (await fetch(`http://provider.test/${provider}/_received`)).json<ReceivedRequest[]>();
    expect(await received()).toEqual([]);
    // The recorder does record: the empty list above is the console's silence, not a deaf provider.
    await fetch(`http://provider.test/${provider}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-provider-secret" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "direct" }] }),
    });
    expect(await received()).toHaveLength(1);
  });

  it("is described in the OpenAPI document: a bounded list of mocks, each field explained", async () => {
    type Operation = { requestBody?: { content: Record<string, { schema: unknown }> } };
    const doc = await json<{ paths: Record<string, Record<string, Operation>> }>(
      await call("GET", "/v1/openapi.json", { key: null }),
      200,
    );
    const operation = doc.paths["/v1/workspaces/{ws}/files/{path}/test"]?.post;
    const body = operation?.requestBody?.content["application/json"]?.schema as {
      properties: { hostCalls: { maxItems: number; description: string; items: unknown } };
    };
    expect(body.properties.hostCalls).toMatchObject({
      maxItems: 50,
      description: expect.stringContaining("in order"),
    });
    const item = body.properties.hostCalls.items as {
      description: string;
      properties: Record<string, { description?: string }>;
    };
    expect(Object.keys(item.properties)).toEqual(["name", "args", "result", "error"]);
    expect(item.description).toMatch(/`args`.*`result`.*`error`/);
    expect(item.properties.name?.description).toContain("rayrun.model");
    expect(item.properties.error?.description).toContain("rejects");
  });

  it("refuses a malformed hostCalls with a problem and stores no test run", async () => {
    const f = await hookFixture();
    const model = { name: "model", result: COMPLETION };
    const cases: [unknown, string][] = [
      [model, "/hostCalls"],
      [[{ name: "search", result: 1 }], "/hostCalls/0/name"],
      [[{ name: "model", result: 1, error: "both" }], "/hostCalls/0"],
      [[{ name: "model" }], "/hostCalls/0"],
      [Array.from({ length: 51 }, () => model), "/hostCalls"],
    ];
    for (const [hostCalls, path] of cases) {
      const res = await call("POST", fileUrl(f, HOOK_PATH, "/test"), {
        key: f.key,
        body: { export: "ask", input: {}, hostCalls },
      });
      const problem = await expectProblem(res, 400, "invalid_request");
      expect(problem.errors, JSON.stringify(hostCalls).slice(0, 80)).toContainEqual(
        expect.objectContaining({ path }),
      );
    }
    expect(await testRunCount(f.ws)).toBe(0);

    const fifty = await run(
      f,
      "ask",
      Array.from({ length: 50 }, () => model),
    );
    expect(fifty).toMatchObject({ ok: true, hostCalls: { used: 1, unused: 49, unmatched: 0 } });
    expect(await testRunCount(f.ws)).toBe(1);
  });
});
