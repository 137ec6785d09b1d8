// Turning a thrown sandbox value into a SandboxError. The facts come from
// the engine (error class, own data properties, read without running hook
// code) and from the host's own state (meter, log collector, memory), never
// from matching the text of whatever the hook threw.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { LIMITS } from "../../limits";
import { cancelled, fail } from "../engine/failure";
import type { SandboxError } from "../types";

export interface ErrorDescription {
  /** "export": the prelude could not find the export to call (message says why). */
  kind: "error" | "value" | "null" | "export";
  name: string;
  message: string;
  /** Set by the prelude only for the engine's own errors (see describeError in prelude/bridge.js). */
  engine: "" | "stack" | "memory";
}

/**
 * Calls the prelude's describeError (`describe`). The record has a null
 * prototype and is read field by field: no JSON round trip that vandalised
 * prototypes could break, and no classification inside, so a failure here
 * cannot recurse. Handles made here belong to the running call (call.ts).
 */
export function describeError(
  ctx: QuickJSContext,
  describe: QuickJSHandle,
  errorHandle: QuickJSHandle,
  own: (handle: QuickJSHandle) => QuickJSHandle,
): ErrorDescription {
  const result = ctx.callFunction(describe, ctx.undefined, errorHandle);
  if (result.error) {
    own(result.error);
    throw fail("hook_threw", "unreadable error");
  }
  const record = own(result.value);
  const field = (name: string): string => {
    const handle = own(ctx.getProp(record, name));
    return ctx.typeof(handle) === "string" ? ctx.getString(handle) : "";
  };
  return {
    kind: field("kind") as ErrorDescription["kind"],
    name: field("name"),
    message: field("message"),
    engine: field("engine") as ErrorDescription["engine"],
  };
}

export interface ClassifyState {
  /** The caller's signal stopped the call (its interrupt is not the hook's doing). */
  cancelled: boolean;
  exhausted: boolean;
  timeout: SandboxError;
  logViolation: string | null;
  underMemoryPressure: () => boolean;
  /** Prefix for failures of our own set-up code. */
  fallback?: string;
}

export function classify(described: ErrorDescription | null, state: ClassifyState): SandboxError {
  if (state.cancelled) return cancelled().error;
  // Sticky limits win: a hook that caught the error still broke them.
  if (state.exhausted) return state.timeout;
  if (state.logViolation !== null) return { code: "hook_log_limit", message: state.logViolation };
  const outOfMemory: SandboxError = { code: "hook_out_of_memory", message: "the hook ran out of memory" };
  if (described === null) {
    return state.underMemoryPressure()
      ? outOfMemory
      : { code: "hook_threw", message: state.fallback ?? "the hook threw a value that could not be read" };
  }
  if (described.kind === "export") return { code: "hook_invalid_module", message: described.message };
  if (described.engine === "stack") {
    return {
      code: "hook_stack_overflow",
      message: `the hook exceeded the ${LIMITS.stackBytes}-byte stack (too deep recursion)`,
    };
  }
  // The engine's own OOM error is trusted; a thrown null (what an allocation
  // failure while building an error leaves) only counts when memory is short.
  if (described.engine === "memory") return outOfMemory;
  if (described.kind === "null" && state.underMemoryPressure()) return outOfMemory;
  if (
    described.kind === "error" &&
    described.name === "InternalError" &&
    described.message === "interrupted"
  ) {
    return state.timeout;
  }
  const text =
    described.kind === "error" ? `${described.name}: ${described.message}` : `threw ${described.message}`;
  return { code: "hook_threw", message: state.fallback ? `${state.fallback}: ${text}` : text };
}
