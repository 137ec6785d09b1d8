// What a request hook can reach:
//  - `rayrun.lambda({ source, args })`: runs another deployed `lib/` function,
//    only with the workspace's `code_execution.sys_lambda` gate on and a
//    source the workspace authorizes (a `lib/` file with an active
//    deployment). The nested run gets no capabilities of its own.
//  - `rayrun.model({ provider, request })`: a direct model call through the
//    workspace's provider; it never runs the request hook again.
//  - `rayrun.log.debug|info|warn|error(message, data?)`: entries kept with the
//    run (the same bounds as an adapter's `context.log`).
// Every call is bounded by what is left of the hook's time, in wall-clock
// time for what it awaits and in fuel for the CPU work of a nested lambda.
// The bridge is built per invocation from the calling loop's policy
// (host-policy.ts): refused calls throw `host_call_forbidden`, and calls the
// policy marks for approval pass the invocation's approval gate first.
import { type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { parseHookSource } from "../config/pre-llm-hook";
import { PROVIDERS, type ProviderName } from "../config/providers";
import type { WorkspaceConfig } from "../config/schema";
import { loadDeployedFile } from "../deploy/deployed-file";
import { exportPath } from "../files/exports";
import { isJsonObject, type Json } from "../json";
import type { LoopPolicy } from "../config/loops";
import { HostCallError, runModuleExport, type HostCall } from "../sandbox";
import { NAMESPACE, NESTED_LAMBDA_EXTENSIONS } from "./hook-extensions";
import { FUEL_PER_MS } from "../sandbox/call/fuel";
import { neutralToAnthropic } from "./anthropic";
import { forwardToProvider } from "./forward";
import type { HostApprovalGate } from "./host-approvals";
import { describeHostCall, HOST_CALL_FORBIDDEN, HostCallPolicy } from "./host-policy";
import { neutralToOpenai } from "./openai";
import { validateNeutralRequest } from "./request";

export { FUEL_PER_MS };

export interface HostContext {
  env: Pick<Env, "DB" | "CODE" | "RAYRUN_BOOTSTRAP_KEY"> & WorkspaceBinding;
  workspaceUid: string;
  requestId: string;
  config: WorkspaceConfig;
  /** Epoch ms after which every capability refuses. */
  deadline: number;
  /** Set when a capability was cut off by the deadline (the hook ran out of time, whatever it did next). */
  expired?: { value: boolean };
  /** The calling loop's policy (loopPolicy). */
  policy: LoopPolicy;
  /** Admits calls the policy marks for approval; without one (plugins) such calls are refused. */
  approvals?: HostApprovalGate;
  /** The caller's abort: every pending call rejects, and what it sent out is aborted. */
  signal?: AbortSignal;
}

/** The rejection of a call whose caller went away. */
export const CANCELLED = "the request was cancelled";

export const TIME_UP = `the request hook's time is up`;

/**
 * Rejects once the hook's time is up, whatever the capability is doing, and
 * aborts its signal so outgoing requests stop too. (A request already sent
 * cannot be retracted; the host may finish handling it independently.)
 */
function bounded<T>(ctx: HostContext, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const expire = () => {
    if (ctx.expired) ctx.expired.value = true;
    return new Error(TIME_UP);
  };
  if (ctx.signal?.aborted === true) return Promise.reject(new Error(CANCELLED));
  const left = ctx.deadline - Date.now();
  if (left <= 0) return Promise.reject(expire());
  const controller = new AbortController();
  const { promise: cut, reject } = Promise.withResolvers<never>();
  const timer = setTimeout(() => {
    const error = expire();
    controller.abort(error);
    reject(error);
  }, left);
  const cancel = () => {
    const error = new Error(CANCELLED);
    controller.abort(error);
    reject(error);
  };
  ctx.signal?.addEventListener("abort", cancel, { once: true });
  return Promise.race([work(controller.signal), cut]).finally(() => {
    clearTimeout(timer);
    ctx.signal?.removeEventListener("abort", cancel);
  });
}

async function lambda(ctx: HostContext, input: Json, signal: AbortSignal): Promise<Json> {
  if (ctx.config.code_execution?.sys_lambda !== true) {
    throw new Error(`${NAMESPACE}.lambda is disabled: the workspace's code_execution.sys_lambda gate is off`);
  }
  if (!isJsonObject(input) || typeof input.source !== "string") {
    throw new Error(`${NAMESPACE}.lambda takes { source: "lib/file.ts:function", args }`);
  }
  let reference: { path: string; exportName: string };
  try {
    reference = parseHookSource(input.source);
  } catch {
    throw new Error(`${NAMESPACE}.lambda: ${JSON.stringify(input.source)} is not a lib/ source`);
  }
  const file = await loadDeployedFile(ctx.env, ctx.workspaceUid, reference.path);
  if (file === null || file.kind !== "lib") {
    throw new Error(
      `${NAMESPACE}.lambda: ${reference.path} is not an authorized source (no active deployment)`,
    );
  }
  if (!file.exports.includes(reference.exportName)) {
    throw new Error(`${NAMESPACE}.lambda: ${reference.path} exports no function ${reference.exportName}`);
  }
  // CPU work is bounded by what is left of the hook's time, as fuel; its top
  // level gets the same budget.
  const fuel = Math.max(1, Math.floor((ctx.deadline - Date.now()) * FUEL_PER_MS));
  const report = await runModuleExport({
    code: file.code,
    exportPath: exportPath("lib", reference.exportName),
    input: input.args ?? null,
    nowMs: Date.now(),
    seed: `${ctx.requestId}:lambda`,
    extensions: NESTED_LAMBDA_EXTENSIONS,
    fuel,
    moduleFuel: fuel,
    signal,
  });
  if (!report.outcome.ok) {
    throw new Error(
      `${NAMESPACE}.lambda ${input.source} failed (${report.outcome.error.code}): ${report.outcome.error.message}`,
    );
  }
  return report.outcome.value.value ?? null;
}

async function model(ctx: HostContext, input: Json, signal: AbortSignal): Promise<Json> {
  if (!isJsonObject(input) || !PROVIDERS.includes(input.provider as ProviderName)) {
    throw new Error(`${NAMESPACE}.model takes { provider: "openai" | "anthropic", request }`);
  }
  const provider = input.provider as ProviderName;
  // `tools` and `options` may be left out of a direct call.
  const request = isJsonObject(input.request) ? { tools: [], options: {}, ...input.request } : input.request;
  const checked = validateNeutralRequest(request);
  if (!checked.ok) {
    throw new Error(
      `${NAMESPACE}.model: invalid request: ${checked.error.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`,
    );
  }
  const body =
    provider === "openai" ? neutralToOpenai(checked.value, false) : neutralToAnthropic(checked.value, false);
  const forwarded = await forwardToProvider(
    ctx.env,
    ctx.workspaceUid,
    ctx.config,
    provider,
    body,
    null,
    signal,
  );
  if (forwarded.kind !== "response") throw new Error(`${NAMESPACE}.model: ${forwarded.message}`);
  const text = await forwarded.response.text();
  if (!forwarded.response.ok) {
    throw new Error(`${NAMESPACE}.model: the provider answered HTTP ${forwarded.response.status}`);
  }
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Error(`${NAMESPACE}.model: the provider's answer is not JSON`);
  }
}

type Capability = (ctx: HostContext, input: Json, signal: AbortSignal) => Promise<Json>;

/** One invocation's bridge: its own policy state (model calls counted per invocation). */
export function hostCallsFor(ctx: HostContext): Record<string, HostCall> {
  const policy = new HostCallPolicy(ctx.policy);
  const guarded =
    (name: "lambda" | "model", capability: Capability): HostCall =>
    (input) =>
      bounded(ctx, async (signal) => {
        const call = describeHostCall(name, input);
        if (policy.check(call)) {
          if (ctx.approvals === undefined) {
            throw new HostCallError(
              HOST_CALL_FORBIDDEN,
              `${NAMESPACE}.${name} needs an approval here, and only a request hook can ask for one`,
            );
          }
          await ctx.approvals.admit(call);
        }
        return capability(ctx, input, signal);
      });
  return { lambda: guarded("lambda", lambda), model: guarded("model", model) };
}
