// The adapters of docs/adapters.md do what the page says: each compiled by the
// real compiler and run, stage by stage, on the inputs the page describes.
// (The tutorial's own adapter, search.ts, runs through the API and the gateway
// in adapters-flow.test.ts.)
import { beforeAll, describe, expect, it } from "vitest";
import type { StepRun } from "../../shared/adapter/steps";
import { err } from "../../shared/result";
import { call, createKey, createWorkspace, json } from "../helpers/api";
import {
  CALLED_AT,
  compileSnippet,
  demoTool,
  demoTools,
  REQUEST_ID,
  runSnippet,
  warmCompiler,
} from "./harness";
import { snippet, snippetJson, snippetObject } from "./snippets";
import { DEMO_TOOLS, UPLOAD_TOOL as UPLOAD } from "./tool-schemas";

beforeAll(warmCompiler, 180_000);

/** The outcome of a stage that ran and succeeded (the test fails with the run otherwise). */
function outcomeOf(run: StepRun) {
  expect(run, JSON.stringify(run)).toMatchObject({ ok: true, ran: true });
  if (!run.ok) throw new Error("unreachable");
  return run.value;
}

const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

describe("the tools the adapters are written for", () => {
  it("are the demo upstream's tools as it lists them (the Node type check uses these schemas)", async () => {
    const listed = await demoTools();
    for (const tool of Object.values(DEMO_TOOLS)) expect(listed[tool.name]).toEqual(tool);
  });
});

describe("every adapter snippet compiles to the stages the page describes", () => {
  it.each([
    ["adapters/search.ts", ["before", "after"]],
    ["adapters/approval.ts", ["before"]],
    ["adapters/redact.ts", ["after"]],
    ["adapters/fail.ts", ["after"]],
    ["adapters/context.ts", ["before"]],
    ["adapters/encoding.ts", ["before", "after"]],
  ])("%s", async (path, stages) => {
    expect((await compileSnippet(path)).stages).toEqual(stages);
  });

  it("search.ts declares the public contract agents see", async () => {
    const { publicContract } = await compileSnippet("adapters/search.ts");
    expect(publicContract).toMatchObject({
      description: "Search the release notes. Returns the matching releases, best first.",
      inputSchema: { required: ["query"], additionalProperties: false },
    });
  });
});

describe("approval.ts", () => {
  it("asks for approval of text with an email address, with the arguments unchanged", async () => {
    const args = { text: "Forward the invoice to ada@example.com" };
    const run = await runSnippet("adapters/approval.ts", {
      tool: await demoTool("echo"),
      stage: "before",
      arguments: args,
    });
    expect(outcomeOf(run)).toEqual({
      action: "approval",
      arguments: args,
      reason: "The text contains an email address; a person must approve sending it.",
    });
  });

  it("lets everything else through unchanged", async () => {
    const run = await runSnippet("adapters/approval.ts", {
      tool: await demoTool("echo"),
      stage: "before",
      arguments: { text: "hello" },
    });
    expect(outcomeOf(run)).toEqual({ action: "continue", arguments: { text: "hello" } });
  });
});

describe("redact.ts", () => {
  it("gets echo's content blocks and redacts runs of four or more digits in its text blocks only", async () => {
    const image = { type: "image", data: base64("1234"), mimeType: "image/png" };
    const run = await runSnippet("adapters/redact.ts", {
      tool: await demoTool("echo"),
      stage: "after",
      result: { content: [{ type: "text", text: "card 4111 1111 1111 1111, PIN 123" }, image] },
    });
    expect(outcomeOf(run)).toEqual({
      action: "return",
      result: {
        content: [{ type: "text", text: "card [redacted] [redacted] [redacted] [redacted], PIN 123" }, image],
      },
    });
  });
});

describe("fail.ts", () => {
  it("fails a result that names an internal host, and logs which title it withheld", async () => {
    const title = "Moved to build.internal.example";
    const run = await runSnippet("adapters/fail.ts", {
      tool: await demoTool("search_release_notes"),
      stage: "after",
      result: {
        items: [
          { title: "Workers 2.0", score: 0.9 },
          { title, score: 0.5 },
        ],
      },
    });
    expect(outcomeOf(run)).toEqual({
      action: "fail",
      reason: "internal_host",
      message: "The search result named an internal host, so it was withheld.",
    });
    expect(run.logs).toEqual([
      { level: "warn", message: "withheld a result naming an internal host", data: { title } },
    ]);
  });

  it("returns any other result as it came", async () => {
    const result = { items: [{ title: "Workers 2.0", score: 0.9 }] };
    const run = await runSnippet("adapters/fail.ts", {
      tool: await demoTool("search_release_notes"),
      stage: "after",
      result,
    });
    expect(outcomeOf(run)).toEqual({ action: "return", result });
  });
});

describe("context.ts", () => {
  it("stamps the text with the deployed label and the call's time, and logs the tool and request id", async () => {
    const echo = await demoTool("echo");
    const run = await runSnippet("adapters/context.ts", {
      tool: echo,
      stage: "before",
      arguments: { text: "hi" },
      config: "adapters/context.config.json",
    });
    const label = String(snippetObject("adapters/context.config.json").label);
    expect(outcomeOf(run)).toEqual({ action: "continue", arguments: { text: `[${label} ${CALLED_AT}] hi` } });
    expect(run.logs).toEqual([
      { level: "info", message: "stamped", data: { tool: "echo", requestId: REQUEST_ID } },
    ]);
  });

  it("says agent when no label is deployed", async () => {
    const run = await runSnippet("adapters/context.ts", {
      tool: await demoTool("echo"),
      stage: "before",
      arguments: { text: "hi" },
    });
    expect(outcomeOf(run)).toEqual({ action: "continue", arguments: { text: `[agent ${CALLED_AT}] hi` } });
  });
});

describe("encoding.ts", () => {
  it("sends the upstream the text as UTF-8 base64", async () => {
    const run = await runSnippet("adapters/encoding.ts", {
      tool: UPLOAD,
      stage: "before",
      arguments: { name: "notes.txt", text: "Grüße, 世界" },
    });
    expect(outcomeOf(run)).toEqual({
      action: "continue",
      arguments: { name: "notes.txt", contentBase64: base64("Grüße, 世界") },
    });
  });

  it("hands the agent the preview decoded, the rest of the result unchanged", async () => {
    const run = await runSnippet("adapters/encoding.ts", {
      tool: UPLOAD,
      stage: "after",
      result: { id: "f_1", preview: base64("Grüße") },
    });
    expect(outcomeOf(run)).toEqual({ action: "return", result: { id: "f_1", preview: "Grüße" } });
  });

  it("refuses text that is not a string before the hook runs", async () => {
    const run = await runSnippet("adapters/encoding.ts", {
      tool: UPLOAD,
      stage: "before",
      arguments: { name: "notes.txt", text: 42 },
    });
    expect(run).toMatchObject({ ...err({ code: "public_arguments_invalid" }), ran: false });
  });
});

describe("refused.ts", () => {
  it("is refused by POST /v1/compile with the diagnostics the page shows", async () => {
    // A key of its own: compilations are counted per key, and the platform key is every test's.
    const { key } = await createKey((await createWorkspace("docs-compile")).uid, ["hooks:write"]);
    const res = await call("POST", "/v1/compile", { key, body: { source: snippet("adapters/refused.ts") } });
    const problem = await json<{ code: string; diagnostics: unknown }>(res, 422);
    expect(problem.code).toBe("compile_failed");
    expect(problem.diagnostics).toEqual(snippetJson("adapters/refused.diagnostics.json"));
  });
});
