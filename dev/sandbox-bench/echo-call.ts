// What bench:llm's four plugins see on a call of the upstream's `echo`: the
// gateway's own tool.execute payloads (workers/gateway/plugins/execute-payloads.ts)
// and the plugins' code, shared by the workerd bench Worker (worker.ts) and
// bench:sandbox's Node section (bench/sandbox-plugins.ts).
import type { JsonObject } from "../../shared/json";
import { afterPayload, beforePayload } from "../../workers/gateway/plugins/execute-payloads";
import { benchPluginHooks, moduleCode } from "../../test/shared/sandbox/code";

export const ECHO_CALL = {
  workspaceUid: "ws_bench",
  requestId: "req_bench",
  calledAt: "2026-01-01T00:00:00.000Z",
  loop: "main",
};
const ARGS = { text: "hello" };

/** Each hook a tool call runs, in order, with the payload the gateway hands the first plugin. */
export const ECHO_HOOKS: readonly ["tool.execute.before" | "tool.execute.after", JsonObject][] = [
  ["tool.execute.before", beforePayload("echo", ARGS, ECHO_CALL)],
  [
    "tool.execute.after",
    afterPayload("echo", ARGS, { title: "echo", output: "hello", metadata: { isError: false } }, ECHO_CALL),
  ],
];

/** bench:llm's plugin number `n` (1-4), compiled. */
export const benchPluginCode = (n: number): string =>
  moduleCode(`return { default: ${benchPluginHooks(n)} };`);
