// Internal control flow: a SandboxFailure carries a classified, user-facing
// error out of deep call paths; everything else escaping is an engine problem.
import type { CancelledCode, SandboxError, SandboxErrorCode } from "../types";

export class SandboxFailure extends Error {
  constructor(readonly error: SandboxError) {
    super(error.message);
    this.name = "SandboxFailure";
  }
}

export const fail = (code: SandboxErrorCode | CancelledCode, message: string): SandboxFailure =>
  new SandboxFailure({ code, message });

/** The engine's own failure, not the hook's: a fresh sandbox may not meet it again. */
export const engineFault = (message: string): SandboxFailure =>
  new SandboxFailure({ code: "hook_out_of_memory", message, engineFault: true });

export const cancelled = (): SandboxFailure =>
  fail("hook_cancelled", "the hook was cancelled: its caller went away");

/** A wasm trap, or the host stack blown while deep inside wasm: the instance is unusable afterwards. */
export function isEngineTrap(error: unknown): error is Error {
  if (error instanceof WebAssembly.RuntimeError) return true;
  return error instanceof RangeError && /call stack/i.test(error.message);
}
