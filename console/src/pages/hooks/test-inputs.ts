// The test console's inputs and how they become a request: a tool stage with arguments (and a
// mock result for after), or a file's function with one input and the mocks its host calls
// (rayrun.lambda, rayrun.model) take. Seeded from the tool's schemas and from the payload shapes
// docs/request-hooks.md and docs/plugins.md describe.
import type { InferRequestType } from "hono/client";
import { fileTestApi, toolConsoleApi } from "../../api/client";
import { ProblemError } from "../../api/problem";
import { entryPointer } from "../../components/field-errors";
import { exampleFor, pretty } from "./json-example";
import type { HookTarget } from "./target";
import type { Json, TestAnswer } from "./types";

export interface TestInputs {
  stage: "before" | "after";
  arguments: string;
  result: string;
  /** Files: the exported function (lib) or the plugin hook to run. */
  fn: string;
  input: string;
  /** Files: a JSON array of host call mocks, sent as `hostCalls` when not empty. */
  hostCalls: string;
}

/** The API's limit on mocks per run (workers/api/deploy/mock-host-calls.ts). */
export const MAX_HOST_CALL_MOCKS = 50;
export const HOST_CALLS_EXAMPLE = '[{ "name": "lambda", "result": { "messages": [] } }]';

/** How a file run used its mocks, as the API answers it next to the run. */
export interface HostCallUsage {
  used: number;
  unused: number;
  unmatched: number;
}

export const PLUGIN_HOOKS = ["tool.execute.before", "tool.execute.after", "chat.params", "tool"] as const;

const CTX = {
  requestId: "test-request",
  workspaceUid: "ws",
  calledAt: "2024-01-01T00:00:00.000Z",
};

/** A representative input for each plugin hook and for a lib request hook. */
export function fileInputFor(fn: string, kind: "lib" | "plugin"): string {
  if (kind === "lib") {
    return pretty({
      request: {
        model: "demo",
        messages: [{ role: "user", content: "Hello" }],
        tools: [{ name: "fs_read", description: "Read a file", inputSchema: { type: "object" } }],
        options: {},
      },
      loop: { name: "main" },
    });
  }
  switch (fn) {
    case "tool.execute.before":
      return pretty({ toolID: "echo", args: { text: "hi" }, ctx: CTX });
    case "tool.execute.after":
      return pretty({
        toolID: "echo",
        args: { text: "hi" },
        result: { title: "echo", output: "card 4111 1111 1111 1111", metadata: { isError: false } },
        ctx: CTX,
      });
    case "chat.params":
      return pretty({ model: "demo", temperature: 0.7 });
    default:
      return pretty({});
  }
}

function mockResult(outputSchema: object | null): unknown {
  if (outputSchema) return exampleFor(outputSchema);
  return { content: [{ type: "text", text: "example result" }] };
}

export function initialInputs(target: HookTarget): TestInputs {
  if (target.kind === "tool") {
    return {
      stage: "before",
      arguments: pretty(exampleFor(target.tool.inputSchema)),
      result: pretty(mockResult(target.tool.outputSchema)),
      fn: "",
      input: "",
      hostCalls: "[]",
    };
  }
  const fn = target.fileKind === "lib" ? "transform" : "tool.execute.after";
  return {
    stage: "before",
    arguments: "",
    result: "",
    fn,
    input: fileInputFor(fn, target.fileKind),
    hostCalls: "[]",
  };
}

function invalid(code: string, title: string, pointer: string, detail: string): ProblemError {
  return new ProblemError(0, code, title, detail, [{ pointer, detail }], {});
}

function parse(label: string, pointer: string, text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw invalid("invalid_json", `${label} is not valid JSON`, pointer, String(error));
  }
}

const refuseMocks = (detail: string) =>
  invalid("invalid_host_calls", "Host call mocks are not valid", "/hostCalls", detail);

/**
 * The mocks to send: the list's shape is checked here so a typo costs no run; what each mock
 * holds (name, args, result or error) the API checks and names by pointer.
 */
export function parseHostCalls(text: string): unknown[] {
  if (text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Shown at the field alone, so the message says what it is about.
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(
      "invalid_json",
      "Host call mocks are not valid JSON",
      "/hostCalls",
      `Not valid JSON: ${reason}`,
    );
  }
  if (!Array.isArray(value)) {
    const got = value === null ? "null" : typeof value === "object" ? "an object" : `a ${typeof value}`;
    throw refuseMocks(`Host call mocks must be a JSON array of mocks; this is ${got}.`);
  }
  if (value.length > MAX_HOST_CALL_MOCKS) {
    throw refuseMocks(`At most ${MAX_HOST_CALL_MOCKS} mocks; this list has ${value.length}.`);
  }
  const notObject = value.findIndex(
    (mock) => mock === null || typeof mock !== "object" || Array.isArray(mock),
  );
  if (notObject >= 0) {
    throw refuseMocks(`Mock ${notObject + 1} is not an object like { "name": "lambda", "result": … }.`);
  }
  return value;
}

/**
 * What the problem says about the mocks, each naming the mock it is about (the API's entries name
 * it by pointer: `/hostCalls/0/name` becomes "Mock 1 name: …").
 */
export function hostCallMessages(problem: ProblemError | null): string[] {
  const messages: string[] = [];
  for (const entry of problem?.errors ?? []) {
    const match = /^\/hostCalls(?:\/(\d+)(\/.*)?)?$/.exec(entryPointer(entry) ?? "");
    const message = entry.message ?? entry.detail;
    if (!match || typeof message !== "string") continue;
    const [, index, rest] = match;
    if (index === undefined) messages.push(message);
    else {
      const field = rest ? ` ${rest.slice(1).replaceAll("/", ".")}` : "";
      messages.push(`Mock ${Number(index) + 1}${field}: ${message}`);
    }
  }
  return messages;
}

/** A problem only with the host call mocks is shown at that field alone. */
export function shownInline(problem: ProblemError | null): boolean {
  return (
    problem !== null &&
    problem.errors.length > 0 &&
    hostCallMessages(problem).length === problem.errors.length
  );
}

type FileTestBody = InferRequestType<ReturnType<typeof fileTestApi>["test"]["$post"]>["json"];

/** What one run sends, and a short label for the runs list. */
export function testBody(target: HookTarget, inputs: TestInputs, version?: number) {
  const v = version === undefined ? {} : { version };
  if (target.kind === "tool") {
    const args = parse("Arguments", "/arguments", inputs.arguments);
    const tool = toolConsoleApi(target.base).test;
    if (inputs.stage === "before") {
      return {
        label: "before",
        input: args,
        send: () => tool.$post({ json: { stage: "before", arguments: args, ...v } }),
      };
    }
    const result = parse("Mock result", "/result", inputs.result);
    const json = { stage: "after" as const, arguments: args, result, ...v };
    return { label: "after", input: result, send: () => tool.$post({ json }) };
  }
  const input = parse("Input", "/input", inputs.input);
  // Only the list's shape is checked here; the API checks each mock and names it by pointer.
  const hostCalls = parseHostCalls(inputs.hostCalls) as NonNullable<FileTestBody["hostCalls"]>;
  const mocks = hostCalls.length > 0 ? { hostCalls } : {};
  const fn = inputs.fn.trim();
  const named = target.fileKind === "plugin" ? { hook: fn } : fn === "" ? {} : { export: fn };
  const json: FileTestBody = { ...named, input, ...mocks, ...v };
  return { label: fn || "main", input, send: () => fileTestApi(target.base).test.$post({ json }) };
}

export async function runTest(target: HookTarget, inputs: TestInputs, version?: number) {
  const { label, input, send } = testBody(target, inputs, version);
  const answer: TestAnswer = await (await send()).json();
  return { ...answer, label, input, at: new Date().toISOString() };
}
