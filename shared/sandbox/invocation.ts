// The generic core every hook kind uses, in two phases:
//  1. module: the compiled module's top level and the caller's `prepare`, on
//     a restored prelude base, with a fixed clock (0), a fixed random seed and
//     their own fuel budget. Done once per code and isolate: what it leaves is
//     kept as the code's memory image (image/images.ts).
//  2. call: the image restored, the call's clock and seed fixed through the
//     prelude's private api, a fresh call budget charged; the caller drives
//     the call; fuel, logs and duration are always reported.
// Every call starts from exactly the state its module phase left, so calls
// learn nothing of each other. Engine traps retire the wasm instance.
//
// When the instance's memory layout is not recognised, both phases run back
// to back in a runtime of the call's own instead (the slower fallback).
import { Scope } from "quickjs-emscripten-core";
import type { Json } from "../json";
import { LIMITS } from "../limits";
import { Call, type CallSetup, type HostCall } from "./call/call";
import { Base, PreludeFailure } from "./engine/base";
import { engineFault, isEngineTrap, SandboxFailure } from "./engine/failure";
import { nearMemoryCap } from "./engine/instance";
import { largestFunctionBytes } from "./engine/layout";
import { nativeTurnsSpent } from "./engine/native-meter";
import { Vm } from "./engine/vm";
import type { BaseImage, CodeImage, Images, ModuleFailure } from "./image/images";
import type { Engine, EngineProvider } from "./image/provider";
import { OWN_RUNTIME } from "./image/residency";
import type { PreludeExtension } from "./prelude";
import { err, ok, type Result } from "../result";
import type { InvocationReport, SandboxError } from "./types";

/** What Date.now() returns during a module's top level (the call's clock is set at call time). */
export const MODULE_CLOCK_MS = 0;
/** Math.random's seed during a module's top level; the call reseeds from its request id. */
export const MODULE_SEED = "rayrun:module";

export interface ModuleSpec<P> {
  /** What `prepare` reads: images of one code for different purposes are kept apart by it. */
  kind: string;
  code: string;
  extensions: readonly PreludeExtension[];
  /** The top level's own budget (default LIMITS.fuelPerInvocation); never charged to a call. */
  moduleFuel?: number;
  /** Reads what calls need once the top level has run (charged to the module phase). */
  prepare: (call: Call) => P;
  /** A call's builder to rehearse once the module phase is done (Call.rehearse), and its sample input. */
  rehearsal?: { builder: string; sample: Json };
  /**
   * Keep the code's image for later calls (default true). Code that is run
   * once (a Code Mode program) would otherwise fill the image cache with
   * images nobody calls again, each with a whole expanded copy while in use.
   */
  keep?: boolean;
}

export interface CallOptions {
  /** What Date.now() returns inside the hook. */
  nowMs: number;
  /** Seeds Math.random (the request id, so a call replays identically). */
  seed: string;
  /** The call's budget (default LIMITS.fuelPerInvocation). */
  fuel?: number;
  hostCalls?: Readonly<Record<string, HostCall>>;
  /**
   * Aborting it stops the call at its next fuel poll, or at once while it
   * awaits a host capability (whose result is then dropped): `hook_cancelled`.
   */
  signal?: AbortSignal;
}

type Built<P> = Result<CodeImage<P>, ModuleFailure>;

function trapError(error: Error, engine: Engine): SandboxError {
  if (nativeTurnsSpent(engine)) {
    return {
      code: "hook_timeout",
      message: `the hook's built-in work ran past its budget (${LIMITS.nativeLoopTurns} loop turns of the engine)`,
    };
  }
  if (error instanceof RangeError) {
    return { code: "hook_stack_overflow", message: "the hook exhausted the engine stack" };
  }
  return nearMemoryCap(engine)
    ? { code: "hook_out_of_memory", message: "the hook ran out of sandbox memory" }
    : engineFault("the sandbox engine failed while running the hook").error;
}

const PREPARE_FAILED: SandboxError = {
  code: "hook_out_of_memory",
  message: "the sandbox could not be prepared for the hook",
};

/** The report of an invocation whose module phase failed (no call ran). */
export function moduleFailureReport<T>(failed: { error: SandboxError; fuelUsed: number }, started: number) {
  const report: InvocationReport<T> = {
    outcome: err(failed.error),
    logs: [],
    fuelUsed: failed.fuelUsed,
    durationMs: performance.now() - started,
  };
  return report;
}

/** A failure of the module phase, classified; only the top level's own failures are remembered. */
function moduleFailure(
  provider: EngineProvider,
  engine: Engine,
  error: unknown,
  fuelUsed: number,
  budget: number,
): { failure: ModuleFailure; deterministic: boolean } {
  if (error instanceof SandboxFailure) {
    // The top level depends only on the code (fixed clock, seed and budget,
    // exact fuel), so it fails the same way again; memory depends on the
    // whole instance.
    const deterministic = error.error.code !== "hook_out_of_memory";
    return { failure: { error: error.error, fuelUsed, budget }, deterministic };
  }
  if (error instanceof PreludeFailure) {
    console.error("sandbox:", error.message);
    provider.retire(engine);
    return { failure: { error: PREPARE_FAILED, fuelUsed, budget }, deterministic: false };
  }
  provider.retire(engine);
  if (isEngineTrap(error))
    return { failure: { error: trapError(error, engine), fuelUsed, budget }, deterministic: false };
  throw error;
}

/** A call on the images' runtime, for the invocation `setup.owner` (which holds the instance). */
function imageCall(images: Images, base: BaseImage, setup: Omit<CallSetup, "residency">): Call {
  return new Call(images.engine, images.vm, base.base, { ...setup, residency: images.residency });
}

/**
 * What an image is built for: calls now and later (kept), one call now
 * (`once`), or no call at all (compile-time inspection).
 */
type ImageUse = "keep" | "once" | "inspect";

/** Phase 1 on images: the code's image, built now unless kept or known to fail. */
function imageFor<P>(
  provider: EngineProvider,
  engine: Engine,
  images: Images,
  spec: ModuleSpec<P>,
  use: ImageUse,
  owner: object,
): Built<P> {
  const budget = spec.moduleFuel ?? LIMITS.fuelPerInvocation;
  const keep = use === "keep";
  if (keep) {
    const found = images.find(spec.code, spec.kind, budget);
    if (found !== undefined && "delta" in found) {
      const image = found as CodeImage<P>;
      // A top level that needs more than this caller's budget fails for it as it would fresh.
      if (image.moduleFuel < budget) return ok(image);
      return err({
        error: {
          code: "hook_timeout",
          message: `the hook's top level used its whole fuel budget (${budget} units)`,
        },
        fuelUsed: budget,
        budget,
      });
    }
    if (found !== undefined) return err(found);
  }
  let baseImage;
  try {
    baseImage = images.base(spec.extensions);
  } catch (error) {
    return err(moduleFailure(provider, engine, error, 0, budget).failure);
  }
  const { residency } = images;
  // The bytecode's size, from compiling alone: steps are priced by the
  // running function's bytecode, so the heap that counts is the rest.
  residency.enter(null, baseImage.snapshot);
  let compiledBytes = 0;
  let moduleCode = 0;
  try {
    const compiled = images.vm.context.evalCode(spec.code, "hook.js", { type: "global", compileOnly: true });
    if (!compiled.error) {
      compiledBytes = Math.max(0, images.census().used - baseImage.used);
      moduleCode = largestHookFunction(engine, images.vm, baseImage.base);
    }
  } finally {
    residency.leave(null, baseImage.snapshot.end);
  }
  const baseTop = baseImage.snapshot.top;
  const call = imageCall(images, baseImage, {
    fuel: budget,
    heldBytes: () => Math.max(0, images.top() - baseTop - compiledBytes),
    codeBytes: moduleCode,
    owner,
  });
  residency.enter(call, baseImage.snapshot);
  let end = baseImage.snapshot.end;
  try {
    call.begin(MODULE_CLOCK_MS, MODULE_SEED, budget, "module");
    call.evaluate(spec.code);
    const value = spec.prepare(call);
    call.checkSticky();
    const moduleFuel = call.finish();
    const held = Math.max(0, images.census().used - baseImage.used - compiledBytes);
    const codeBytes = largestHookFunction(engine, images.vm, baseImage.base);
    if (spec.rehearsal) call.rehearse(spec.rehearsal.builder, spec.rehearsal.sample);
    // Sealed before any call runs on it, so that call's held bytes read as the heap top's growth.
    if (use !== "inspect") images.seal();
    const delta = images.captureCode(baseImage);
    end = delta.end;
    const image: CodeImage<P> = {
      code: spec.code,
      kind: spec.kind,
      baseImage,
      delta,
      value,
      held,
      codeBytes,
      moduleFuel,
      moduleBudget: budget,
      logs: call.logs.entries,
    };
    if (keep) images.keep(image);
    return ok(image);
  } catch (error) {
    let fuelUsed = 0;
    try {
      if (!engine.retired) fuelUsed = call.finish();
    } catch (finishError) {
      if (!isEngineTrap(finishError)) throw finishError;
      provider.retire(engine);
    }
    const { failure, deterministic } = moduleFailure(provider, engine, error, fuelUsed, budget);
    if (deterministic && keep) images.remember(spec.code, spec.kind, failure);
    return err(failure);
  } finally {
    call.end();
    residency.leave(call, end);
  }
}

/** Phase 2 on images: one call on the code's image. */
async function callImage<P, T>(
  provider: EngineProvider,
  engine: Engine,
  images: Images,
  image: CodeImage<P>,
  options: CallOptions,
  body: (call: Call, value: P) => Promise<T> | T,
  owner: object,
): Promise<{ outcome: InvocationReport<T>["outcome"]; call: Call; fuelUsed: number }> {
  const imageTop = image.delta.top;
  const call = imageCall(images, image.baseImage, {
    fuel: options.fuel ?? LIMITS.fuelPerInvocation,
    heldBytes: () => image.held + Math.max(0, images.top() - imageTop),
    codeBytes: image.codeBytes,
    owner,
  });
  const state = images.stateOf(image);
  images.residency.enter(call, state);
  let outcome: InvocationReport<T>["outcome"];
  let fuelUsed = 0;
  try {
    call.setHostCalls(options.hostCalls);
    call.setSignal(options.signal);
    call.begin(options.nowMs, options.seed);
    const value = await body(call, image.value);
    call.checkSticky();
    outcome = ok(value);
  } catch (error) {
    outcome = err(callFailure(provider, engine, error));
  } finally {
    try {
      if (!engine.retired && images.residency.holds(call)) fuelUsed = call.finish();
      else fuelUsed = call.fuelSpent();
    } catch (error) {
      provider.retire(engine);
      if (!isEngineTrap(error)) console.error("sandbox: failed to finish a call", error);
    }
    call.end();
    images.residency.leaveFor(call, state);
  }
  return { outcome, call, fuelUsed };
}

function callFailure(provider: EngineProvider, engine: Engine, error: unknown): SandboxError {
  if (error instanceof SandboxFailure) return error.error;
  provider.retire(engine);
  if (isEngineTrap(error)) return trapError(error, engine);
  throw error;
}

/**
 * Runs the module phase alone, without keeping an image (compile-time
 * inspection): what `prepare` read, or why the top level failed.
 */
export async function inspectInvocation<P>(
  provider: EngineProvider,
  spec: ModuleSpec<P>,
): Promise<Result<P, SandboxError>> {
  const engine = await provider.get();
  const images = engine.images;
  if (images !== null) {
    const owner = {};
    await images.residency.acquire(owner);
    try {
      const built = imageFor(provider, engine, images, spec, "inspect", owner);
      return built.ok ? ok(built.value.value) : err(built.error.error);
    } finally {
      images.residency.release(owner);
    }
  }
  const report = await runFresh(
    provider,
    engine,
    spec,
    { nowMs: 0, seed: "inspect" },
    (_call, value) => value,
  );
  return report.outcome;
}

/** Both phases: the code's image (built once), then one call on it. */
export async function runInvocation<P, T>(
  provider: EngineProvider,
  spec: ModuleSpec<P>,
  options: CallOptions,
  body: (call: Call, value: P) => Promise<T> | T,
): Promise<InvocationReport<T>> {
  const started = performance.now();
  const engine = await provider.get();
  const images = engine.images;
  if (images === null) return runFresh(provider, engine, spec, options, body);
  // The instance is this invocation's from its image's restore to its call's end (image/residency.ts).
  const owner = {};
  await images.residency.acquire(owner);
  try {
    const keep = spec.keep ?? true;
    const built = imageFor(provider, engine, images, spec, keep ? "keep" : "once", owner);
    if (!built.ok) return moduleFailureReport(built.error, started);
    const { outcome, call, fuelUsed } = await callImage(
      provider,
      engine,
      images,
      built.value,
      options,
      body,
      owner,
    ).finally(() => {
      if (!keep) images.forget(built.value);
    });
    return {
      outcome,
      logs: [...built.value.logs, ...call.logs.entries],
      fuelUsed,
      durationMs: performance.now() - started,
    };
  } finally {
    images.residency.release(owner);
  }
}

/** The hook's largest function now in the VM, in bytes of bytecode (0 when the layout is unknown). */
function largestHookFunction(engine: Engine, vm: Vm, base: Base): number {
  const path = engine.layout.codeLength;
  return path === null ? 0 : largestFunctionBytes(engine.memory, path, vm.runtimePtr, base.preludeAtom);
}

/** Bytes one live allocation stands for when the heap cannot be read (the fallback's pricing). */
const FALLBACK_BYTES_PER_ALLOCATION = 64;

/** Both phases back to back in a runtime of the call's own (the fallback without images). */
async function runFresh<P, T>(
  provider: EngineProvider,
  engine: Engine,
  spec: ModuleSpec<P>,
  options: CallOptions,
  body: (call: Call, value: P) => Promise<T> | T,
): Promise<InvocationReport<T>> {
  const started = performance.now();
  // The runtime of the call's own and the prelude in it, freed when the call is over (the prelude first).
  const runtime = new Scope();
  let call: Call | undefined;
  let inCall = false;
  let outcome: InvocationReport<T>["outcome"];
  let fuelUsed = 0;
  try {
    const vm = runtime.manage(Vm.create(engine));
    const base = runtime.manage(Base.install(vm, spec.extensions, engine));
    let baseAllocations = 0;
    const compiled = vm.context.evalCode(spec.code, "hook.js", { type: "global", compileOnly: true });
    const codeBytes = compiled.error ? 0 : largestHookFunction(engine, vm, base);
    compiled.dispose();
    const current: Call = new Call(engine, vm, base, {
      fuel: options.fuel ?? LIMITS.fuelPerInvocation,
      heldBytes: () =>
        Math.max(0, current.meter.liveAllocations() - baseAllocations) * FALLBACK_BYTES_PER_ALLOCATION,
      codeBytes,
      residency: OWN_RUNTIME,
      disposeHandles: true,
    });
    call = current;
    vm.current = current;
    baseAllocations = current.meter.liveAllocations();
    current.begin(MODULE_CLOCK_MS, MODULE_SEED, spec.moduleFuel ?? LIMITS.fuelPerInvocation, "module");
    current.evaluate(spec.code);
    const value = spec.prepare(current);
    current.checkSticky();
    current.finish();
    if (spec.rehearsal) current.rehearse(spec.rehearsal.builder, spec.rehearsal.sample);
    inCall = true;
    current.setHostCalls(options.hostCalls);
    current.setSignal(options.signal);
    current.begin(options.nowMs, options.seed);
    const result = await body(current, value);
    current.checkSticky();
    outcome = ok(result);
  } catch (error) {
    if (error instanceof PreludeFailure) {
      console.error("sandbox:", error.message);
      outcome = err(PREPARE_FAILED);
    } else {
      outcome = err(callFailure(provider, engine, error));
    }
  } finally {
    if (call !== undefined && !engine.retired) {
      try {
        fuelUsed = call.finish();
      } catch (error) {
        provider.retire(engine);
        if (!isEngineTrap(error)) console.error("sandbox: failed to finish a call", error);
      }
    }
    call?.end();
    if (!engine.retired) {
      try {
        runtime.dispose();
      } catch (error) {
        // Tearing down after a trap can trap again; the engine is gone either way.
        provider.retire(engine);
        if (!isEngineTrap(error)) console.error("sandbox: failed to dispose a runtime", error);
      }
    }
  }
  const logs = inCall && call !== undefined ? call.logs.entries : [];
  return { outcome, logs, fuelUsed, durationMs: performance.now() - started };
}
