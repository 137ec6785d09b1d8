// One plugin hook across the workspace's plugins: in order, each plugin that defines the hook runs in a fresh sandbox
// with the value the previous one produced; `undefined` means no change, any
// other return replaces the whole value. It fails open: a plugin that throws,
// returns something unusable or runs out of time is logged and skipped, the
// pipeline goes on from the value it was given, and this never throws.
//
// Time: LIMITS.pluginHookTimeoutMs bounds a
// plugin twice. CPU work as fuel (× FUEL_PER_MS, the request hooks'
// calibration; Workers freeze clocks while code runs, so only fuel can stop a
// busy loop), and awaited work on the wall clock: its host calls are cut off at
// the deadline and a timer stops waiting for it. An abandoned plugin's result
// is ignored; its sandbox is ours and is stopped as far as it can be from
// outside: every pending host call rejects at the deadline, later ones are
// refused at once, so it can only finish what CPU work its fuel still allows,
// after which the sandbox is disposed as usual. Nothing awaits it.
import { type WorkspaceBinding } from "../../durable-objects/workspace/rpc";
import { readWorkspaceConfig } from "../config";
import type { WorkspaceConfig } from "../config/schema";
import { exportPath } from "../files/exports";
import { isJsonObject, type Json } from "../json";
import { fileTarget } from "../lifecycle/target";
import { LIMITS } from "../limits";
import { loopPolicy } from "../config/loops";
import { MAIN_LOOP } from "../config/pre-llm-hook";
import { FUEL_PER_MS, hostCallsFor } from "../llm/host-calls";
import { REQUEST_HOOK_EXTENSIONS } from "../llm/hook-extensions";
import type { RunRecord } from "../db/run-types";
import {
  runModuleExport,
  type HostCall,
  type InvocationReport,
  type ModuleReturn,
  type PreludeExtension,
} from "../sandbox";
import type { LogEntry } from "../sandbox/types";
import type { DeployedPlugin } from "./discovery";

/** The hooks that thread a value through the plugins (`tool` is called once per revision instead). */
export type PipelineHook = "chat.params" | "tool.execute.before" | "tool.execute.after";

export type PluginEnv = Pick<Env, "DB" | "CODE" | "RAYRUN_BOOTSTRAP_KEY"> & WorkspaceBinding;

export interface PluginHookInput<T extends Json> {
  workspaceUid: string;
  requestId: string;
  hook: PipelineHook;
  value: T;
  /** In pipeline order (`activePlugins`); those without the hook are skipped. */
  plugins: readonly DeployedPlugin[];
  toolName?: string | null;
  toolUid?: string | null;
  /** The workspace config (for the `rayrun.*` capabilities' gates); read when needed if absent. */
  config?: WorkspaceConfig;
  /**
   * Checks a plugin's return beyond JSON: a problem sentence drops that
   * plugin's contribution (outcome `threw`), null accepts it.
   */
  validate?: (value: Json) => string | null;
  /** Prelude extensions added after the plugin namespace (e.g. CHAT_PARAMS_EXTENSION). */
  extensions?: readonly PreludeExtension[];
  /**
   * Capabilities lent beside `rayrun.*` (the product lends none; tests lend a
   * slow one). Bounded like the rest: each call rejects at the deadline.
   */
  hostCalls?: Readonly<Record<string, HostCall>>;
  /** Tests only: a shorter bound than LIMITS.pluginHookTimeoutMs. */
  timeoutMs?: number;
}

export interface PluginHookResult<T extends Json> {
  value: T;
  /** One per plugin that has the hook, in the order they ran. */
  records: RunRecord[];
}

/** The documented log line for a throwing hook (the details add which plugin, which hook and the error). */
export const HOOK_THREW = "plugin: hook threw";
/** The documented log line for an abandoned hook, for a bound of `ms`. */
export const exceeded = (ms: number) => `exceeded ${ms}ms; dropping its contribution`;

/** The sandbox's message for a returned promise nothing can settle: it would never finish, so it is out of time. */
const NEVER_SETTLES = "never settled";

type Step =
  | { outcome: "passed" }
  | { outcome: "continue"; value: Json; warning: string | null }
  | { outcome: "threw"; code: string; message: string }
  | { outcome: "abandoned"; code: string; message: string };

function abandonedStep(name: string, hook: string, ms: number, why: string): Step {
  return {
    outcome: "abandoned",
    code: "hook_timeout",
    message: `plugin ${name} (${hook}) ${exceeded(ms)} (${why})`,
  };
}

/** Runs `hook` through every plugin that has it; never throws. */
export async function runPluginHook<T extends Json>(
  env: PluginEnv,
  input: PluginHookInput<T>,
): Promise<PluginHookResult<T>> {
  const records: RunRecord[] = [];
  let value: Json = input.value;
  let config = input.config;
  for (const plugin of input.plugins) {
    if (!plugin.hooks.includes(input.hook)) continue;
    const started = Date.now();
    let report: InvocationReport<ModuleReturn> | null = null;
    let step: Step;
    try {
      config ??= await readWorkspaceConfig(env.DB, input.workspaceUid);
      const ran = await runOne(env, input, plugin, value, config);
      report = ran.report;
      step = ran.step;
    } catch (error) {
      // Our own failure (a config read, the engine) still only drops this plugin.
      step = {
        outcome: "threw",
        code: "plugin_error",
        message: `${HOOK_THREW} (${plugin.name}, ${input.hook}): ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const logs: LogEntry[] = [...(report?.logs ?? [])];
    if (step.outcome === "continue" && step.warning !== null) {
      logs.push({ level: "warn", message: step.warning });
    }
    records.push({
      workspaceUid: input.workspaceUid,
      kind: "plugin",
      target: fileTarget(plugin.path),
      toolUid: input.toolUid ?? null,
      toolName: input.toolName ?? null,
      stage: input.hook,
      channel: "active",
      outcome: step.outcome,
      code: step.outcome === "threw" || step.outcome === "abandoned" ? step.code : null,
      revisionId: plugin.revisionId,
      requestId: input.requestId,
      durationMs: Date.now() - started,
      fuelUsed: report?.fuelUsed ?? 0,
      shadowDiffered: null,
      loop: null,
      plugin: plugin.name,
      at: new Date().toISOString(),
      details: {
        logs,
        arguments: value,
        ...(step.outcome === "continue" ? { result: step.value } : {}),
        ...(step.outcome === "threw" || step.outcome === "abandoned" ? { error: step.message } : {}),
      },
    });
    if (step.outcome === "continue") value = step.value;
  }
  return { value: value as T, records };
}

async function runOne(
  env: PluginEnv,
  input: PluginHookInput<Json>,
  plugin: DeployedPlugin,
  value: Json,
  config: WorkspaceConfig,
): Promise<{ report: InvocationReport<ModuleReturn> | null; step: Step }> {
  const { hook } = input;
  const ms = input.timeoutMs ?? LIMITS.pluginHookTimeoutMs;
  const fuel = ms * FUEL_PER_MS;
  const now = Date.now();
  const deadline = now + ms;
  const expired = { value: false };
  let abandoned = false;
  // Plugins serve every loop: the workspace default (main's) policy bounds their host calls.
  const granted = hostCallsFor({
    env,
    workspaceUid: input.workspaceUid,
    requestId: input.requestId,
    config,
    deadline,
    expired,
    policy: loopPolicy(config, MAIN_LOOP),
  });
  // One timer ends the plugin's time: it stops our wait (below) and rejects
  // every host call still pending; once abandoned, later calls are refused.
  const { promise: cut, reject: cutOff } = Promise.withResolvers<never>();
  cut.catch(() => undefined);
  const bounded =
    (hostCall: HostCall): HostCall =>
    (arg) =>
      abandoned ? Promise.reject(new Error(exceeded(ms))) : Promise.race([hostCall(arg), cut]);
  const hostCalls: Record<string, HostCall> = Object.fromEntries(
    Object.entries({ ...granted, ...input.hostCalls }).map(([name, call]) => [name, bounded(call)]),
  );
  const run = runModuleExport({
    code: plugin.code,
    exportPath: exportPath("plugin", hook),
    input: value,
    nowMs: now,
    seed: `${input.requestId}:${plugin.name}:${hook}`,
    extensions: [...REQUEST_HOOK_EXTENSIONS, ...(input.extensions ?? [])],
    hostCalls,
    fuel,
    moduleFuel: fuel,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      resolve("timeout");
      abandoned = true;
      expired.value = true;
      cutOff(new Error(exceeded(ms)));
    }, ms);
  });
  const settled = await Promise.race([run, timeout]).finally(() => clearTimeout(timer));
  if (settled === "timeout") {
    // Left to settle on its own (see the header); a failure there is nobody's.
    run.catch(() => undefined);
    return { report: null, step: abandonedStep(plugin.name, hook, ms, "still running at the deadline") };
  }
  const report = settled;
  const { outcome } = report;
  if (!outcome.ok && outcome.error.code === "hook_timeout") {
    return { report, step: abandonedStep(plugin.name, hook, ms, outcome.error.message) };
  }
  if (!outcome.ok && outcome.error.message.includes(NEVER_SETTLES)) {
    return { report, step: abandonedStep(plugin.name, hook, ms, outcome.error.message) };
  }
  // A host call cut off by the deadline: out of time, whatever it did next.
  if (expired.value || Date.now() > deadline) {
    return { report, step: abandonedStep(plugin.name, hook, ms, "awaited work ran past the deadline") };
  }
  if (!outcome.ok) {
    const { code, message } = outcome.error;
    return {
      report,
      step: {
        outcome: "threw",
        code,
        message: `${HOOK_THREW} (${plugin.name}, ${hook}): ${code}: ${message}`,
      },
    };
  }
  const returned = outcome.value.value;
  if (returned === undefined) return { report, step: { outcome: "passed" } };
  const problem = input.validate?.(returned) ?? null;
  if (problem !== null) {
    return {
      report,
      step: {
        outcome: "threw",
        code: "hook_invalid_return",
        message: `${HOOK_THREW} (${plugin.name}, ${hook}): hook_invalid_return: ${problem}`,
      },
    };
  }
  const warning =
    hook !== "chat.params" && !(isJsonObject(returned) && "toolID" in returned)
      ? `plugin ${plugin.name}: ${hook} returned a value without toolID; a hook must return the whole payload ({ ...input, … }), a fragment drops the rest`
      : null;
  return { report, step: { outcome: "continue", value: returned, warning } };
}
