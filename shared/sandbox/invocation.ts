// The generic core every hook kind uses: get the engine, open a fresh
// session, run the module's top level, let the caller drive calls, and always
// report fuel, logs and duration. Engine traps retire the wasm instance.
import { LIMITS } from "../limits";
import type { EngineProvider, Engine } from "./engine";
import { nearMemoryCap } from "./engine";
import { isEngineTrap, SandboxFailure } from "./failure";
import type { PreludeExtension } from "./prelude";
import { Session, type HostCall } from "./session";
import type { InvocationReport, SandboxError } from "./types";

export interface InvocationOptions {
  code: string;
  extensions: readonly PreludeExtension[];
  /** What Date.now() returns inside the hook. */
  nowMs: number;
  /** Seeds Math.random (the request id, so a call replays identically). */
  seed: string;
  fuel?: number;
  hostCalls?: Readonly<Record<string, HostCall>>;
}

function trapError(error: Error, engine: Engine | undefined): SandboxError {
  if (error instanceof RangeError) {
    return { code: "hook_stack_overflow", message: "the hook exhausted the engine stack" };
  }
  const full = engine !== undefined && nearMemoryCap(engine);
  return {
    code: "hook_out_of_memory",
    message: full ? "the hook ran out of sandbox memory" : "the sandbox engine failed while running the hook",
  };
}

export async function runInvocation<T>(
  provider: EngineProvider,
  options: InvocationOptions,
  body: (session: Session) => Promise<T> | T,
): Promise<InvocationReport<T>> {
  // Workers freeze clocks during CPU work, so this measures little more than
  // awaited host calls in production; fuelUsed is the real cost measure.
  const started = performance.now();
  let engine: Engine | undefined;
  let session: Session | undefined;
  let outcome: InvocationReport<T>["outcome"];
  let fuelUsed = 0;
  try {
    engine = await provider.get();
    session = Session.open(engine, {
      extensions: options.extensions,
      fuel: options.fuel ?? LIMITS.fuelPerInvocation,
      ...(options.hostCalls ? { hostCalls: options.hostCalls } : {}),
    });
    session.begin(options.nowMs, options.seed);
    session.evaluate(options.code);
    const value = await body(session);
    session.checkSticky();
    outcome = { ok: true, value };
  } catch (error) {
    if (error instanceof SandboxFailure) {
      outcome = { ok: false, error: error.error };
    } else if (isEngineTrap(error)) {
      if (engine) provider.retire(engine);
      outcome = { ok: false, error: trapError(error, engine) };
    } else {
      if (engine) provider.retire(engine);
      throw error;
    }
  } finally {
    if (session) {
      try {
        fuelUsed = session.finish();
        session.close();
      } catch (error) {
        // Tearing down after a trap can trap again; the engine is gone either way.
        if (engine) provider.retire(engine);
        if (!isEngineTrap(error)) console.error("sandbox: failed to dispose a session", error);
      }
    }
  }
  return {
    outcome,
    logs: session ? session.logs.entries : [],
    fuelUsed,
    durationMs: performance.now() - started,
  };
}
