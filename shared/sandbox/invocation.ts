// The generic core every hook kind uses, in two phases:
//  1. module: open a session (own runtime + context + prelude), run the
//     compiled module's top level and the caller's `prepare` with a fixed
//     clock (0), a fixed random seed and their own fuel budget;
//  2. call: fix the call's clock and seed through the prelude's private api,
//     charge a fresh call budget, let the caller drive the call, and always
//     report fuel, logs and duration; then dispose the session.
// The two phases run back to back for a fresh invocation, or apart when the
// module phase ran ahead of time in the warm pool (pool.ts). Either way the
// call sees exactly the same state, so pre-warming changes latency only.
// Engine traps retire the wasm instance.
import type { Json } from "../json";
import { LIMITS } from "../limits";
import type { EngineProvider, Engine } from "./engine";
import { nearMemoryCap } from "./engine";
import { isEngineTrap, SandboxFailure } from "./failure";
import type { PreludeExtension } from "./prelude";
import { Session, type HostCall } from "./session";
import type { InvocationReport, SandboxError } from "./types";

/** What Date.now() returns during a module's top level (the call's clock is set at call time). */
export const MODULE_CLOCK_MS = 0;
/** Math.random's seed during a module's top level; the call reseeds from its request id. */
export const MODULE_SEED = "rayrun:module";

export interface ModuleOptions {
  code: string;
  extensions: readonly PreludeExtension[];
  /** The call's budget (default LIMITS.fuelPerInvocation). */
  fuel?: number;
  /** The top level's own budget (default LIMITS.fuelPerInvocation); never charged to a call. */
  moduleFuel?: number;
  /** The call's builder to rehearse once the module phase is done (see Session.rehearse), and its sample input. */
  rehearsal?: { builder: string; sample: Json };
}

export interface CallOptions {
  /** What Date.now() returns inside the hook. */
  nowMs: number;
  /** Seeds Math.random (the request id, so a call replays identically). */
  seed: string;
  hostCalls?: Readonly<Record<string, HostCall>>;
}

export interface InvocationOptions extends ModuleOptions, CallOptions {}

/** A session whose module phase is done and which has never served a call. */
export interface PreparedSession<P> {
  readonly engine: Engine;
  readonly session: Session;
  /** What `prepare` read from the module (e.g. the adapter's stages). */
  readonly value: P;
  /** Fuel the top level and `prepare` used. */
  readonly moduleFuel: number;
}

export type ModuleResult<P> =
  | { ok: true; prepared: PreparedSession<P> }
  | {
      ok: false;
      error: SandboxError;
      fuelUsed: number;
      /**
       * The module phase depends only on the code (fixed clock, seed and
       * budget, exact fuel), so the same code fails the same way again —
       * except for memory, which depends on the whole instance.
       */
      deterministic: boolean;
    };

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

/** Disposes a session; a trap while tearing down retires the engine. */
function closeSession(provider: EngineProvider, engine: Engine, session: Session): void {
  try {
    session.close();
  } catch (error) {
    // Tearing down after a trap can trap again; the engine is gone either way.
    provider.retire(engine);
    if (!isEngineTrap(error)) console.error("sandbox: failed to dispose a session", error);
  }
}

/** Disposes a prepared session that will never serve a call (pool eviction). */
export function discardPrepared<P>(provider: EngineProvider, prepared: PreparedSession<P>): void {
  if (prepared.engine.retired) return; // the instance is dropped as a whole
  closeSession(provider, prepared.engine, prepared.session);
}

/** Phase 1, synchronous: a fresh session with the module's top level run. */
export function prepareModule<P>(
  provider: EngineProvider,
  engine: Engine,
  options: ModuleOptions,
  prepare: (session: Session) => P,
): ModuleResult<P> {
  let session: Session | undefined;
  try {
    session = Session.open(engine, {
      extensions: options.extensions,
      fuel: options.fuel ?? LIMITS.fuelPerInvocation,
    });
    session.begin(MODULE_CLOCK_MS, MODULE_SEED, options.moduleFuel ?? LIMITS.fuelPerInvocation, "module");
    session.evaluate(options.code);
    const value = prepare(session);
    session.checkSticky();
    const moduleFuel = session.finish();
    if (options.rehearsal) session.rehearse(options.rehearsal.builder, options.rehearsal.sample);
    return { ok: true, prepared: { engine, session, value, moduleFuel } };
  } catch (error) {
    let fuelUsed = 0;
    if (session) {
      try {
        fuelUsed = session.finish();
      } catch (finishError) {
        if (!isEngineTrap(finishError)) throw finishError;
        provider.retire(engine);
      }
      closeSession(provider, engine, session);
    }
    if (error instanceof SandboxFailure) {
      return {
        ok: false,
        error: error.error,
        fuelUsed,
        deterministic: error.error.code !== "hook_out_of_memory",
      };
    }
    provider.retire(engine);
    if (isEngineTrap(error))
      return { ok: false, error: trapError(error, engine), fuelUsed, deterministic: false };
    throw error;
  }
}

/**
 * Takes a session after its one call. `succeeded` is false when the call
 * failed (the session may hold a lot of memory then). The default disposes at
 * once; the warm pool may defer disposal off the critical path.
 */
export type Release<P> = (prepared: PreparedSession<P>, succeeded: boolean) => void;

/** Phase 2: exactly one call on a prepared session, which is disposed (or released) afterwards. */
export async function runPrepared<P, T>(
  provider: EngineProvider,
  prepared: PreparedSession<P>,
  call: CallOptions,
  body: (session: Session, value: P) => Promise<T> | T,
  release?: Release<P>,
): Promise<InvocationReport<T>> {
  // Workers freeze clocks during CPU work, so this measures little more than
  // awaited host calls in production; fuelUsed is the real cost measure.
  const started = performance.now();
  const { engine, session } = prepared;
  let outcome: InvocationReport<T>["outcome"];
  let fuelUsed = 0;
  let succeeded = false;
  try {
    session.setHostCalls(call.hostCalls);
    session.begin(call.nowMs, call.seed);
    const value = await body(session, prepared.value);
    session.checkSticky();
    outcome = { ok: true, value };
    succeeded = true;
  } catch (error) {
    if (error instanceof SandboxFailure) {
      outcome = { ok: false, error: error.error };
    } else if (isEngineTrap(error)) {
      provider.retire(engine);
      outcome = { ok: false, error: trapError(error, engine) };
    } else {
      provider.retire(engine);
      throw error;
    }
  } finally {
    try {
      fuelUsed = session.finish();
    } catch (error) {
      provider.retire(engine);
      if (!isEngineTrap(error)) console.error("sandbox: failed to finish a session", error);
    }
    if (release && !engine.retired) release(prepared, succeeded);
    else if (!engine.retired) closeSession(provider, engine, session);
  }
  return { outcome, logs: session.logs.entries, fuelUsed, durationMs: performance.now() - started };
}

/** The report of an invocation whose module phase failed (no call ran). */
export function moduleFailureReport<T>(
  failed: { error: SandboxError; fuelUsed: number },
  started: number,
): InvocationReport<T> {
  return {
    outcome: { ok: false, error: failed.error },
    logs: [],
    fuelUsed: failed.fuelUsed,
    durationMs: performance.now() - started,
  };
}

/** Both phases back to back in a fresh session. */
export async function runInvocation<T>(
  provider: EngineProvider,
  options: InvocationOptions,
  body: (session: Session) => Promise<T> | T,
): Promise<InvocationReport<T>> {
  const started = performance.now();
  const engine = await provider.get();
  const module = prepareModule(provider, engine, options, () => undefined);
  if (!module.ok) return moduleFailureReport(module, started);
  const report = await runPrepared(provider, module.prepared, options, (session) => body(session));
  return { ...report, durationMs: performance.now() - started };
}
