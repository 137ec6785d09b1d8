// The request hooks of docs/request-hooks.md do what the page says: each
// deployed through the files API as the page deploys it (save, one test-console
// run, deployment), pointed at by the config the page shows, and run as the
// LLM path runs it, on the request the page describes.
import { beforeAll, describe, expect, it } from "vitest";
import type { NeutralRequest } from "../../shared/llm/request";
import { call, json } from "../helpers/api";
import { deployFileSource, fileUrl } from "../helpers/files";
import {
  failed,
  hookWorkspace,
  runHook,
  sampleRequest,
  setConfig,
  transformed,
  type HookWorkspace,
} from "../shared/llm/harness";
import { FAST_RAG_LAMBDA as FAST_RAG, warmCompiler } from "./harness";
import { codeBlocks, section, snippet, snippetObject } from "./snippets";

beforeAll(warmCompiler, 180_000);

const main = { name: "main" };

/** Deploys `docs/snippets/<snippet>` as the workspace file `path`, its test run calling `transform` with `input`. */
const deploySnippet = (w: HookWorkspace, path: string, snippetPath: string, input: unknown) =>
  deployFileSource(w, path, snippet(snippetPath), { export: "transform", input });

/** The test-console body the page shows for fast-rag-hook.ts, its lambda mocked. */
function mockedTestBody(): Record<string, unknown> {
  const text = section("request-hooks", "## `rayrun.*`: what a hook can call");
  const bodies = codeBlocks(text)
    .filter((block) => block.language === "json" && block.body.includes('"hostCalls"'))
    .map((block) => JSON.parse(block.body) as Record<string, unknown>);
  expect(bodies).toHaveLength(1);
  return bodies[0] ?? {};
}

const FAST_RAG_HOOK = "lib/fast-rag-hook.ts";
/** fast-rag-hook.ts deployed after one test-console run with the page's mocked body. */
const deployFastRagHook = (w: HookWorkspace) =>
  deployFileSource(w, FAST_RAG_HOOK, snippet("request-hooks/fast-rag-hook.ts"), mockedTestBody());

describe("request-policy.ts with the page's config", () => {
  it("deploys with the page's test input and shows the provider only fs_read and fs_write, in every loop", async () => {
    const w = await hookWorkspace();
    const command =
      /^npx rayrun files test lib\/request-policy\.ts --export transform --input '([^']*)'$/m.exec(
        section("request-hooks", "## Configuring a hook"),
      );
    expect(command).not.toBeNull();
    await deploySnippet(
      w,
      "lib/request-policy.ts",
      "request-hooks/request-policy.ts",
      JSON.parse(command?.[1] ?? ""),
    );
    await setConfig(w, snippetObject("request-hooks/config.json"));

    const request = sampleRequest();
    for (const loop of ["main", "researcher"]) {
      const out = transformed(await runHook(w, loop, request));
      expect(out).toEqual({
        ...request,
        tools: request.tools.filter((t) => ["fs_read", "fs_write"].includes(t.name)),
      });
      expect(out.tools.map((t) => t.name)).toEqual(["fs_read", "fs_write"]);
    }
  });
});

describe("contract.ts", () => {
  it("sends the request as it came, logs its loop, and works for a request without a system prompt", async () => {
    const w = await hookWorkspace();
    await deploySnippet(w, "lib/contract.ts", "request-hooks/contract.ts", {
      request: sampleRequest(),
      loop: main,
    });
    await setConfig(w, { pre_llm_hook: { source: "lib/contract.ts:transform", scope: "all" } });

    const request = sampleRequest();
    const outcome = await runHook(w, "researcher", request);
    expect(transformed(outcome)).toEqual(request);
    expect(outcome.kind === "transformed" && outcome.run.logs).toEqual([
      { level: "debug", message: "passing the request through", data: { loop: "researcher" } },
    ]);

    const { system: _system, ...withoutSystem }: NeutralRequest = sampleRequest();
    const out = transformed(await runHook(w, "main", withoutSystem));
    expect(out).toEqual(withoutSystem);
    expect(out).not.toHaveProperty("system");
  });
});

describe("fast-rag-hook.ts in the test console", () => {
  it("runs on the page's mocked lambda, with the answer and the usage the page gives", async () => {
    const w = await hookWorkspace();
    const body = mockedTestBody();
    const current = await call("GET", fileUrl(w, FAST_RAG_HOOK), { key: w.key });
    await current.body?.cancel();
    const saved = await call("PUT", fileUrl(w, FAST_RAG_HOOK, "/draft"), {
      key: w.key,
      body: { source: snippet("request-hooks/fast-rag-hook.ts"), config: {} },
      headers: { "if-match": current.headers.get("etag") ?? "" },
    });
    await json(saved, 200);
    const run = await json<{ ok: boolean; value: NeutralRequest; hostCalls: unknown }>(
      await call("POST", fileUrl(w, FAST_RAG_HOOK, "/test"), { key: w.key, body }),
      200,
    );
    const [mock] = body.hostCalls as { result: { messages: unknown } }[];
    const input = body.input as { request: NeutralRequest };
    expect(run).toMatchObject({ ok: true, hostCalls: { used: 1, unused: 0, unmatched: 0 } });
    expect(run.value).toEqual({ ...input.request, messages: mock?.result.messages });
  });
});

describe("fast-rag-hook.ts with the page's config", () => {
  const question: NeutralRequest = sampleRequest({
    messages: [{ role: "user", content: "When does the office open?" }],
  });

  it("puts what the deployed retrieval lambda found before the last user message", async () => {
    const w = await hookWorkspace();
    await setConfig(w, snippetObject("request-hooks/fast-rag.config.json"));
    await deployFileSource(w, "lib/fast-rag.ts", FAST_RAG, {
      export: "enrichMessages",
      input: { messages: question.messages, loop: "main" },
    });
    await deployFastRagHook(w);

    const out = transformed(await runHook(w, "main", question));
    expect(out).toEqual({
      ...question,
      messages: [
        {
          role: "user",
          content:
            "Retrieved context (loop main):\n- [office-hours] The office opens at 9:00 and closes at 17:30, Monday to Friday.\n\nWhen does the office open?",
        },
      ],
    });
  });

  it("fails closed with request_hook_error when the gate is off: the un-enriched request is not sent", async () => {
    const w = await hookWorkspace();
    await setConfig(w, snippetObject("request-hooks/fast-rag.config.json"));
    await deployFileSource(w, "lib/fast-rag.ts", FAST_RAG, {
      export: "enrichMessages",
      input: { messages: question.messages, loop: "main" },
    });
    await deployFastRagHook(w);
    const gated = snippetObject("request-hooks/fast-rag.config.json");
    await setConfig(w, { ...gated, code_execution: { sys_lambda: false } });

    const failure = failed(await runHook(w, "main", question));
    expect(failure.code).toBe("request_hook_error");
    expect(failure.message).toContain("rayrun.lambda is disabled");
  });
});

describe("typed.ts", () => {
  it("hides the shell tool and nothing else", async () => {
    const w = await hookWorkspace();
    await deploySnippet(w, "lib/typed.ts", "request-hooks/typed.ts", {
      request: sampleRequest(),
      loop: main,
    });
    await setConfig(w, { pre_llm_hook: { source: "lib/typed.ts:transform", scope: "main" } });
    const request = sampleRequest();
    const out = transformed(await runHook(w, "main", request));
    expect(out).toEqual({ ...request, tools: request.tools.filter((t) => t.name !== "shell") });
    expect(request.tools.map((t) => t.name)).toContain("shell");
  });
});
