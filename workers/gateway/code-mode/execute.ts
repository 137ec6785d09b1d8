// `execute`: the model's code in the sandbox, each `tools.<name>(args)` one
// gateway tool call through handleToolCall — the function Direct Mode's
// `tools/call` uses, so every call runs the five steps in order, with its own
// request id (the execution's, then `.1`, `.2`, … in the order the calls
// start), run records, shadow runs and logs.
//
// The execution's bounds (LIMITS.codeMode*) are kept here, on the host: a
// call past the call or concurrency bound, or one still awaited when the wall
// time is up, never starts or is abandoned, and the bound it broke is sticky —
// the execution ends with its code whatever the code does after catching it.
// Approvals end it the same way (approvals.ts): a call that needs one ends the
// execution naming it, and a repeated execution sends its approved call once.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isJsonObject, utf8Bytes, type Json, type JsonObject } from "../../../shared/json";
import { LIMITS } from "../../../shared/limits";
import { JSON_RETURN_EXTENSION } from "../../../shared/llm/hook-extensions";
import { afterInput, ERROR_META_KEY, type RefusalMeta } from "../../../shared/mcp/tool-results";
import { runModuleExport, type LogEntry } from "../../../shared/sandbox";
import { err, ok } from "../../../shared/result";
import { bareMessage } from "../wire/rpc-error";
import type { McpOrigin } from "../wire/origin";
import type { ToolCallAnswer } from "../tool-call/call-types";
import type { Caller, GatewayEnv } from "../env";
import { handleToolCall } from "../tool-call/tool-call";
import { approvalEnd, approvalFor, repeatApproval, type RepeatApproval } from "./approvals";
import { executionFailed, invalidArguments, structured, type ExecutionEnd } from "./results";
import { CODE_MODE_EXTENSION, ENTRY, executionModule, TOOL_HOST_CALL } from "./sandbox";

export interface ExecuteScope {
  env: GatewayEnv;
  ctx: Pick<ExecutionContext, "waitUntil">;
  workspaceUid: string;
  caller: Caller;
  origin: McpOrigin;
  /** The execution's request id; its calls' ids are children of it. */
  requestId: string;
  /** `_meta["rayrun/approvalId"]` of a repeated execution. */
  approvalId?: string;
}

/** Test seams; never set in production. */
export const codeModeFaults: { wallTimeMs?: number } = {};

type Broken = ExecutionEnd;

/** One execution's bookkeeping, shared by its host calls. */
interface Execution {
  scope: ExecuteScope;
  deadline: number;
  started: number;
  inFlight: number;
  /** The first bound the execution broke (or approval that ended it): it ends with this, whatever the code does next. */
  broken: Broken | null;
  /** The approval a repeated execution carries, for the call it was given for. */
  approval: RepeatApproval | null;
}

const EXTENSIONS = [JSON_RETURN_EXTENSION, CODE_MODE_EXTENSION];

/** What a ToolError in the code carries: a gateway refusal, or the upstream's failure. */
type ToolErrorInfo = RefusalMeta & { requestId: string; rpcCode?: number; data?: Json };

// The sandbox's `tools` wrapper (codeModeSettle in sandbox.ts) reads a Result serialized as it
// is, `{ ok: true, value }` or `{ ok, error }`: that JSON is its protocol, so ok() and err() build it.
const failed = (error: ToolErrorInfo): Json => err({ ...error });

/** A tool call's answer as the sandbox's `tools` wrapper reads it: a Result of the value or a ToolError's fields. */
function reply(answer: ToolCallAnswer, name: string, requestId: string): Json {
  if (answer.kind === "unknown_tool") {
    return failed({ code: "unknown_tool", message: `Unknown tool: ${name}`, requestId });
  }
  if (answer.kind === "upstream_error") {
    return failed({
      code: "upstream_error",
      message: bareMessage(answer.code, answer.message),
      rpcCode: answer.code,
      requestId,
      ...(answer.data === undefined ? {} : { data: answer.data as Json }),
    });
  }
  const { result } = answer;
  if (result.isError !== true) return ok(afterInput(result));
  const meta = result._meta?.[ERROR_META_KEY];
  if (isJsonObject(meta) && typeof meta.code === "string" && typeof meta.message === "string") {
    return failed({ ...(meta as unknown as RefusalMeta), requestId });
  }
  // The upstream's own tool error: `after` did not run (the tool-call path's rule); its content is the data.
  const text = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  return failed({
    code: "upstream_tool_error",
    message: text === "" ? `${name} failed upstream.` : text,
    requestId,
    data: result.content as unknown as Json,
  });
}

/** Marks the execution broken (the first bound wins) and returns the error its host call throws. */
function breakBound(run: Execution, broken: Broken): Error {
  run.broken ??= broken;
  return new Error(run.broken.message);
}

const timeUp = (): Broken => ({
  code: "code_mode_time_limit",
  message: `The execution awaited its tool calls for more than ${codeModeFaults.wallTimeMs ?? LIMITS.codeModeWallTimeMs} ms.`,
});

/** `tools.<name>(args)`: one gateway tool call, within the execution's bounds. */
async function toolCall(run: Execution, input: Json): Promise<Json> {
  if (run.broken !== null) throw new Error(run.broken.message);
  if (!isJsonObject(input) || typeof input.name !== "string") throw new Error("tools: bad call");
  const { name } = input;
  if (run.started >= LIMITS.codeModeCallsPerExecution) {
    throw breakBound(run, {
      code: "code_mode_call_limit",
      message: `The execution made more than ${LIMITS.codeModeCallsPerExecution} tool calls.`,
    });
  }
  if (run.inFlight >= LIMITS.codeModeConcurrentCalls) {
    throw breakBound(run, {
      code: "code_mode_concurrency_limit",
      message: `The execution had more than ${LIMITS.codeModeConcurrentCalls} tool calls in flight at once.`,
    });
  }
  const left = run.deadline - Date.now();
  if (left <= 0) throw breakBound(run, timeUp());
  run.started++;
  const requestId = `${run.scope.requestId}.${run.started}`;
  const args = input.arguments ?? {};
  if (!isJsonObject(args)) {
    return failed({
      code: "public_arguments_invalid",
      message: `The arguments of ${name} must be an object.`,
      requestId,
    });
  }
  const { env, ctx, workspaceUid, caller, origin } = run.scope;
  // Chained, not awaited here: the bounds above count this call from now.
  const approved = approvalFor(run.approval, name, args);
  const call = approved.then((approvalId) =>
    handleToolCall(env, ctx, {
      workspaceUid,
      name,
      arguments: args,
      approvalId,
      caller,
      requestId,
      ...origin,
      mode: "code",
    }),
  );
  // A call the execution stops awaiting (time up, or the code ended first) still runs to its end
  // and writes its run records.
  ctx.waitUntil(
    call.then(
      () => undefined,
      () => undefined,
    ),
  );
  run.inFlight++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), left);
  });
  try {
    const answer = await Promise.race([call, expired]);
    if (answer === "expired") throw breakBound(run, timeUp());
    const ended = approvalEnd(answer, { name, requestId, approvalId: await approved });
    if (ended !== null) run.broken ??= ended;
    return reply(answer, name, requestId);
  } catch (error) {
    if (run.broken !== null) throw error;
    console.error("code mode tool call failed", { requestId, error: String(error) });
    return failed({ code: "internal_error", message: `Internal error (request ${requestId}).`, requestId });
  } finally {
    clearTimeout(timer);
    run.inFlight--;
  }
}

/** What the sandbox's failure means for the execution: its output bound, or a failure of the code. */
function sandboxFailure(code: string, message: string): Broken {
  if (code === "hook_output_too_large") return { code: "code_mode_output_too_large", message };
  return { code: "code_mode_failed", reason: code, message };
}

export async function execute(scope: ExecuteScope, args: JsonObject): Promise<CallToolResult> {
  const { code } = args;
  if (typeof code !== "string") return invalidArguments("execute takes { code: string }.");
  const bytes = utf8Bytes(code);
  if (bytes > LIMITS.codeModeCodeBytes) {
    return executionFailed(
      {
        code: "code_mode_code_too_large",
        message: `The code is ${bytes} bytes, over the limit of ${LIMITS.codeModeCodeBytes}.`,
      },
      [],
    );
  }
  let approval: RepeatApproval | null = null;
  if (scope.approvalId !== undefined) {
    const repeat = await repeatApproval(scope.env, scope.workspaceUid, scope.caller, scope.approvalId);
    // An approval no call could use ends the repeat before any of its calls runs again.
    if (!repeat.ok) return executionFailed({ ...repeat.error, approvalId: scope.approvalId }, []);
    approval = repeat.value;
  }
  const now = Date.now();
  const run: Execution = {
    scope,
    deadline: now + (codeModeFaults.wallTimeMs ?? LIMITS.codeModeWallTimeMs),
    started: 0,
    inFlight: 0,
    broken: null,
    approval,
  };
  const report = await runModuleExport({
    code: executionModule(code),
    exportPath: [ENTRY],
    input: null,
    nowMs: now,
    seed: scope.requestId,
    hostCalls: { [TOOL_HOST_CALL]: (input) => toolCall(run, input) },
    extensions: EXTENSIONS,
    // Each program is its own code, run once: an image kept for it would only crowd out hooks' images.
    keep: false,
  });
  const logs: LogEntry[] = report.logs;
  if (run.broken !== null) return executionFailed(run.broken, logs);
  if (!report.outcome.ok) {
    return executionFailed(sandboxFailure(report.outcome.error.code, report.outcome.error.message), logs);
  }
  const result = report.outcome.value.value ?? null;
  const resultBytes = utf8Bytes(JSON.stringify(result));
  if (resultBytes > LIMITS.codeModeOutputBytes) {
    return executionFailed(
      {
        code: "code_mode_output_too_large",
        message: `The result is ${resultBytes} bytes of JSON, over the limit of ${LIMITS.codeModeOutputBytes}.`,
      },
      logs,
    );
  }
  return structured({ result, logs: logs as unknown as Json });
}
