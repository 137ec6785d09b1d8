// Internal control flow: a SandboxFailure carries a classified, user-facing
// error out of deep call paths; everything else escaping is an engine problem.
import type { SandboxError, SandboxErrorCode } from "./types";

export class SandboxFailure extends Error {
  constructor(readonly error: SandboxError) {
    super(error.message);
    this.name = "SandboxFailure";
  }
}

export const fail = (code: SandboxErrorCode, message: string): SandboxFailure =>
  new SandboxFailure({ code, message });

/** A wasm trap, or the host stack blown while deep inside wasm: the instance is unusable afterwards. */
export function isEngineTrap(error: unknown): error is Error {
  if (error instanceof WebAssembly.RuntimeError) return true;
  return error instanceof RangeError && /call stack/i.test(error.message);
}
