// Test helpers running inside workerd; the code builders live in ./code so
// the Node bench can share them.
import { expect } from "vitest";
import type { Json } from "../../../shared/json";
import { runAdapterStage } from "../../../shared/sandbox";
import { beforeCode, SEED_ADAPTER } from "./code";
import type {
  InvocationReport,
  SandboxError,
  SandboxErrorCode,
  ToolCallContext,
} from "../../../shared/sandbox/types";

export { adapterCode, beforeCode, CONTINUE, moduleCode } from "./code";

export { SEED_ADAPTER } from "./code";

export const testContext = (overrides: Partial<ToolCallContext> = {}): ToolCallContext => ({
  calledAt: "2026-03-04T05:06:07.089Z",
  requestId: "req_0001",
  workspaceUid: "ws_1",
  connectionId: "svc_1",
  toolUid: "tool_1",
  toolName: "search_release_notes",
  config: { prefix: "release: " },
  ...overrides,
});

export const runBefore = (code: string, args: Json = {}, context: ToolCallContext = testContext()) =>
  runAdapterStage({ code, stage: "before", context, arguments: args });

export const runAfter = (code: string, result: Json, context: ToolCallContext = testContext()) =>
  runAdapterStage({ code, stage: "after", context, result });

export function okValue<T>(report: InvocationReport<T>): T {
  if (!report.outcome.ok) throw new Error(`expected success, got ${JSON.stringify(report.outcome.error)}`);
  return report.outcome.value;
}

/** The error of a failed report (throws if the call succeeded). */
export function failureOf<T>(report: InvocationReport<T>): SandboxError {
  if (report.outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(report.outcome.value)}`);
  return report.outcome.error;
}

/** Matcher for a failure with `code` and, optionally, a message pattern. */
export const failure = (code: SandboxErrorCode, message?: RegExp) => ({
  code,
  message: message ? expect.stringMatching(message) : expect.any(String),
});

/** The seed adapter still works: nothing a previous hook did leaked into this call. */
export async function expectNextCallHealthy(): Promise<void> {
  const report = await runBefore(SEED_ADAPTER, { query: "v2" });
  expect(report.outcome).toEqual({
    ok: true,
    value: { action: "continue", arguments: { q: "release: v2" } },
  });
  expect(report.logs).toEqual([{ level: "info", message: "Preparing search", data: { query: "v2" } }]);
}

/** The value a `before` stage hands back through `arguments`, for probing the environment. */
export async function probe(expression: string, context?: ToolCallContext): Promise<Json> {
  const report = await runBefore(
    beforeCode(`return { action: "continue", arguments: { value: (${expression}) } };`),
    {},
    context,
  );
  const value = okValue(report);
  if (value.action !== "continue") throw new Error("unexpected action");
  return (value.arguments as { value: Json }).value;
}

export const runAdapterStageAfterWithArgs = (code: string, args: Json, result: Json) =>
  runAdapterStage({ code, stage: "after", context: testContext(), arguments: args, result });
