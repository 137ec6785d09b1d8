// The sandbox's public contract. Everything crossing this boundary is JSON
// or a tagged value; nothing here throws for hook misbehaviour.
import type { Json, JsonObject } from "../json.ts";
import type { Result } from "../result.ts";

/** Stable codes for every way a hook invocation fails (always fail closed for adapters). */
export type SandboxErrorCode =
  | "hook_timeout"
  | "hook_out_of_memory"
  | "hook_stack_overflow"
  | "hook_output_too_large"
  | "hook_log_limit"
  | "hook_invalid_return"
  | "hook_threw"
  | "hook_invalid_module";

/**
 * A call given an abort signal (request hooks) that was aborted: it stopped
 * at its next fuel poll, or while it awaited a host capability.
 */
export type CancelledCode = "hook_cancelled";

export interface SandboxError {
  code: SandboxErrorCode | CancelledCode;
  /** Readable detail for the hook author (never contains host internals). */
  message: string;
  /**
   * The engine failed for reasons of its own (a trap not explained by the
   * hook's memory, an instance lost while the hook waited): running the same
   * hook again in a fresh sandbox may succeed.
   */
  engineFault?: true;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
export interface LogEntry {
  level: LogLevel;
  message: string;
  data?: Json;
}

/** The immutable per-call values a tool adapter sees as `context`. */
export interface ToolCallContext {
  calledAt: string;
  requestId: string;
  workspaceUid: string;
  connectionId: string;
  toolUid: string;
  toolName: string;
  config: JsonObject;
}

export type BeforeOutcome =
  | { action: "continue"; arguments: Json }
  | { action: "reject"; reason: string; message: string }
  | { action: "approval"; arguments: Json; reason: string };

export type AfterOutcome =
  | { action: "return"; result: Json }
  | { action: "fail"; reason: string; message: string };

export type AdapterStage = "before" | "after";

export interface StageRequest {
  /** Compiled script as produced by the compiler. */
  code: string;
  stage: AdapterStage;
  context: ToolCallContext;
  /** `before` input: the public arguments. */
  arguments?: Json;
  /** `after` input: the upstream result (or a mock from the test console). */
  result?: Json;
}

/** What one invocation reports, success or not: logs and budget are kept either way. */
export interface InvocationReport<T> {
  outcome: Result<T, SandboxError>;
  logs: LogEntry[];
  fuelUsed: number;
  durationMs: number;
}

/** What evaluating a compiled adapter's top level yields, read once at compile time. */
export interface AdapterDefinition {
  apiVersion: string;
  publicContract?: Json;
  stages: AdapterStage[];
}
