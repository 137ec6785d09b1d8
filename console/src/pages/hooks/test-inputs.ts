// The test console's inputs and how they become a request: a tool stage with arguments (and a
// mock result for after), or a file's function with one input. Seeded from the tool's schemas
// and from the payload shapes docs/request-hooks.md and docs/plugins.md describe.
import { request } from "../../api/client";
import { ProblemError } from "../../api/problem";
import { exampleFor, pretty } from "./json-example";
import type { HookTarget } from "./target";
import type { JsonObject, TestAnswer } from "./types";

export interface TestInputs {
  stage: "before" | "after";
  arguments: string;
  result: string;
  /** Files: the exported function (lib) or the plugin hook to run. */
  fn: string;
  input: string;
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

function mockResult(outputSchema: JsonObject | null): unknown {
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
    };
  }
  const fn = target.fileKind === "lib" ? "transform" : "tool.execute.after";
  return { stage: "before", arguments: "", result: "", fn, input: fileInputFor(fn, target.fileKind) };
}

function parse(label: string, pointer: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError(
      0,
      "invalid_json",
      `${label} is not valid JSON`,
      String(error),
      [{ pointer, detail: String(error) }],
      {},
    );
  }
}

/** What one run sends, and a short label for the runs list. */
export function testBody(target: HookTarget, inputs: TestInputs, version?: number) {
  const v = version === undefined ? {} : { version };
  if (target.kind === "tool") {
    const args = parse("Arguments", "/arguments", inputs.arguments);
    if (inputs.stage === "before") {
      return { label: "before", input: args, body: { stage: "before", arguments: args, ...v } };
    }
    const result = parse("Mock result", "/result", inputs.result);
    return { label: "after", input: result, body: { stage: "after", arguments: args, result, ...v } };
  }
  const input = parse("Input", "/input", inputs.input);
  const field = target.fileKind === "lib" ? "export" : "hook";
  const fn = inputs.fn.trim();
  const named = fn === "" && field === "export" ? {} : { [field]: fn };
  return { label: fn || "main", input, body: { ...named, input, ...v } };
}

export async function runTest(target: HookTarget, inputs: TestInputs, version?: number) {
  const { label, input, body } = testBody(target, inputs, version);
  const answer = await request<TestAnswer>(`${target.base}/test`, { method: "POST", body });
  return { ...answer.data, label, input, at: new Date().toISOString() };
}
