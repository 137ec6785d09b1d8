// One invocation's state on the host side: its fuel meter, its log
// collector, the host capabilities it was lent and the crossings it makes
// into the prelude's private api. The VM and prelude it runs in are shared
// (../engine/vm.ts, ../engine/base.ts); per-call values reach hook code only
// as call arguments.
//
// Handles made during a call are never disposed after it: the next restore
// takes their memory back (../image/image.ts), and freeing them then would
// corrupt the restored state. A call that awaits a host capability parks its
// state while it waits and has it written back before it continues
// (../image/residency.ts).
import {
  Scope,
  type Disposable,
  type JSPromiseState,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
} from "quickjs-emscripten-core";
import { noteCpuMs } from "../../clock";
import { utf8Bytes, type Json } from "../../json";
import { LIMITS } from "../../limits";
import type { ApiFunction, Base } from "../engine/base";
import type { DirectResult } from "../engine/direct-call";
import { err, ok, type Result } from "../../result";
import { cancelled, fail, SandboxFailure } from "../engine/failure";
import { nearMemoryCap, type Instance } from "../engine/instance";
import {
  nativeTurnsSpent,
  releaseNativeTurns,
  restoreNativeTurns,
  saveNativeTurns,
} from "../engine/native-meter";
import type { Vm } from "../engine/vm";
import type { Residency, Resident } from "../image/residency";
import { classify, describeError, type ErrorDescription } from "./classify";
import { FUEL, FUEL_PER_MS, FuelMeter, type HeapGauge } from "./fuel";
import { LogCollector } from "./logs";
import { randomState } from "./seed";

/** An async capability the host lends to a hook (request hooks, plugins). */
export type HostCall = (input: Json) => Promise<Json>;

/**
 * A host capability's refusal with a stable code: the hook's promise rejects
 * with an Error whose `code` is this code, so hook code can tell it apart.
 */
export class HostCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HostCallError";
  }
}

/** Which phase the meter is charging: the module's top level or the call. */
export type Phase = "module" | "call";

type ApiArg = string | number | boolean | QuickJSHandle;

/** A host call's JSON answer as text, or the error the hook's promise rejects with. */
type HostOutcome = Result<string, { message: string; code?: string }>;

interface PendingHostCall {
  readonly deferred: QuickJSDeferredPromise;
  readonly outcome: Promise<HostOutcome>;
  settled?: HostOutcome;
}

export interface CallSetup {
  /** The call's budget (the module phase passes its own to `begin`). */
  fuel: number;
  /** Bytes of heap the hook holds, for pricing steps (fuel.ts). */
  heldBytes: HeapGauge;
  /** The hook's largest function in bytes of bytecode, for pricing steps (fuel.ts). */
  codeBytes: number;
  residency: Residency;
  /** The invocation the call belongs to, as the residency's lock knows it. */
  owner?: object;
  /**
   * Free every handle the call made when it ends: a call in a runtime of its
   * own, which is freed next (an image's restore frees them all instead).
   */
  disposeHandles?: boolean;
}

export class Call implements Resident {
  readonly logs = new LogCollector();
  readonly meter: FuelMeter;
  private readonly pending = new Set<PendingHostCall>();
  private hostCalls: Readonly<Record<string, HostCall>> | undefined;
  private phase: Phase = "call";
  /** The clock and random state of a phase that has begun but not reached the sandbox yet. */
  private pendingPhase: [number, number, number, number, number] | null = null;
  private readonly residency: Residency;
  /** Set once the call has ended: late host results are dropped. */
  private ended = false;
  private signal: AbortSignal | undefined;
  /** Settles when the signal aborts; made by the first wait for host results (calls that await nothing never listen). */
  private abortWait: Promise<void> | undefined;
  /** The signal stopped the call (sticky, like an exhausted meter). */
  private cancelled = false;

  /** The current phase's own budget (the meter's may grow by platform allowances). */
  budget: number;
  /** The call's budget, fixed when the call was set up. */
  readonly callBudget: number;
  /** The invocation this call belongs to (the residency's lock holder). */
  readonly owner: object;
  /** Owns the handles to free when the call ends (null when a restore frees them). */
  private readonly handles: Scope | null;

  constructor(
    readonly engine: Instance,
    readonly vm: Vm,
    readonly base: Base,
    setup: CallSetup,
  ) {
    this.budget = setup.fuel;
    this.callBudget = setup.fuel;
    this.residency = setup.residency;
    this.owner = setup.owner ?? this;
    this.handles = setup.disposeHandles === true ? new Scope() : null;
    this.meter = new FuelMeter(
      setup.fuel,
      engine,
      vm.contextPtr,
      vm.runtimePtr,
      setup.heldBytes,
      setup.codeBytes,
    );
  }

  private own<T extends Disposable>(handle: T): T {
    return this.handles?.alive === true ? this.handles.manage(handle) : handle;
  }

  /** The settled value or error of a promise state, owned by the call. */
  private ownState(state: JSPromiseState): JSPromiseState {
    if (state.type === "fulfilled" && state.notAPromise !== true) this.own(state.value);
    if (state.type === "rejected") this.own(state.error);
    return state;
  }

  // HostBinding: what the VM's host functions and interrupt handler reach.
  onInterrupt(): boolean {
    if (this.abortedNow()) return true;
    return this.meter.onInterrupt();
  }

  lease(amount: number): number {
    // Refused like spent fuel: the prelude throws and the next poll stops the call.
    if (this.abortedNow()) return -1;
    return this.meter.lease(amount);
  }

  private abortedNow(): boolean {
    if (this.signal?.aborted === true) this.cancelled = true;
    return this.cancelled;
  }

  logRefused(reason: string): void {
    this.logs.refuse(reason);
  }

  markWalk(pure: boolean): number {
    return this.meter.markWalk(pure);
  }

  refundWalk(mark: number, steps: number): void {
    this.meter.refundWalk(mark, steps);
  }

  retune(): void {
    this.meter.retune();
  }

  /** The caller's abort signal for the coming call; an aborted one fails it before it starts. */
  setSignal(signal: AbortSignal | undefined): void {
    this.signal = signal;
    if (this.abortedNow()) throw cancelled();
  }

  /** What a wait for host results races besides them: the signal's abort, if there is a signal. */
  private aborted(): Promise<void> | undefined {
    const signal = this.signal;
    if (signal === undefined || this.abortWait !== undefined) return this.abortWait;
    const { promise, resolve } = Promise.withResolvers<void>();
    signal.addEventListener("abort", () => resolve(), { once: true });
    this.abortWait = promise;
    return promise;
  }

  /** Lends capabilities for the coming call. */
  setHostCalls(hostCalls: Readonly<Record<string, HostCall>> | undefined): void {
    this.hostCalls = hostCalls;
  }

  startHostCall(name: string, inputText: string): QuickJSHandle {
    const deferred = this.own(this.vm.context.newPromise());
    const hostCall =
      this.hostCalls !== undefined && Object.hasOwn(this.hostCalls, name) ? this.hostCalls[name] : undefined;
    const outcome = (async (): Promise<HostOutcome> => {
      // Host work never starts inside the sandbox's own turn: by the time it
      // does, the call has parked and others may use the engine.
      await Promise.resolve();
      try {
        // A call that could not park (or ended) never reaches the capability.
        if (this.ended) throw new Error("the hook's call has ended");
        if (!hostCall) throw new Error(`no host capability named ${JSON.stringify(name)}`);
        return ok(JSON.stringify(await hostCall(JSON.parse(inputText) as Json)));
      } catch (error) {
        if (error instanceof HostCallError) return err({ message: error.message, code: error.code });
        return err({ message: error instanceof Error ? error.message : String(error) });
      }
    })();
    const pending: PendingHostCall = { deferred, outcome };
    void outcome.then((settled) => (pending.settled = settled));
    this.pending.add(pending);
    // The VM's callback wrapper frees the handle it is given: hand it a copy.
    return deferred.handle.dup();
  }

  /** Hands settled host results to the hook (the call's state must be resident). */
  private applySettled(): void {
    const ctx = this.vm.context;
    for (const pending of this.pending) {
      const settled = pending.settled;
      if (settled === undefined) continue;
      this.pending.delete(pending);
      if (settled.ok) {
        pending.deferred.resolve(this.own(ctx.newString(settled.value)));
        continue;
      }
      const { message, code } = settled.error;
      const error = this.own(ctx.newError(message));
      if (code !== undefined) ctx.setProp(error, "code", this.own(ctx.newString(code)));
      pending.deferred.reject(error);
    }
  }

  /** Calls an api helper; the returned handle belongs to the call. */
  private callApi(name: ApiFunction, args: readonly ApiArg[]): QuickJSHandle {
    const fn = this.apiCallee(name);
    const direct = this.vm.direct;
    if (direct !== null) {
      const result = direct.call(fn, args);
      if (!result.ok) throw this.failureFrom(result.error);
      return this.own(result.value);
    }
    const ctx = this.vm.context;
    const handles = args.map((arg) => {
      if (typeof arg === "object") return arg;
      if (typeof arg === "string") return this.own(ctx.newString(arg));
      if (typeof arg === "number") return this.own(ctx.newNumber(arg));
      return arg ? ctx.true : ctx.false;
    });
    const result = ctx.callFunction(fn, ctx.undefined, handles);
    if (result.error) throw this.failureFrom(result.error);
    return this.own(result.value);
  }

  /** The api helper `name`, once the phase it runs in has started. */
  private apiCallee(name: ApiFunction): QuickJSHandle {
    if (name !== "invoke") this.startPhase();
    return this.base.fn(name);
  }

  callApiText(name: ApiFunction, args: readonly ApiArg[]): string {
    const direct = this.vm.direct;
    if (direct !== null) {
      const result: DirectResult<string> = direct.callText(this.apiCallee(name), args);
      if (!result.ok) throw this.failureFrom(result.error);
      return result.value;
    }
    return this.vm.context.getString(this.callApi(name, args));
  }

  /**
   * Starts a phase: fixes the clock and random seed (through the prelude's
   * private api, never through globals), then charges `budget` units of fuel
   * to the hook from zero. The module phase (top level) and the call each get
   * their own budget.
   */
  begin(nowMs: number, seed: string, budget: number = this.callBudget, phase: Phase = "call"): void {
    // Sent with the phase's first crossing (`invoke` takes it as arguments), not a crossing of its own.
    this.pendingPhase = [nowMs, ...randomState(seed)];
    this.phase = phase;
    this.budget = budget;
    this.meter.reset(budget);
    this.meter.begin();
  }

  /** Sets the begun phase's clock and random state in the sandbox, unless done. */
  private startPhase(): void {
    const pending = this.pendingPhase;
    if (pending === null) return;
    this.pendingPhase = null;
    this.callApi("setCall", pending);
  }

  /**
   * Rehearses a call while an image is built, uncharged: the prelude's
   * stand-in for the hook (api.invoke with a null path) is called on `sample`
   * through the crossings a call makes, and what it returns is serialised and
   * dropped. The image keeps what that made, so calls meet no first-use costs
   * on those paths. What the serialisation says is ignored: a top level that
   * vandalised prototypes fails its call, not its module phase.
   */
  rehearse(builder: string, sample: Json): void {
    const returned = this.callApi("invoke", ["null", builder, JSON.stringify(sample), 0]);
    this.ownState(this.vm.context.getPromiseState(returned));
    this.callApiText("serialize", [returned, "rehearsal", LIMITS.outputBytes]);
    // Takes back what the serialisation leased, as the end of a phase does.
    this.callApi("endPhase", []);
  }

  /** Runs the compiled module's top level. */
  evaluate(code: string): void {
    this.startPhase();
    const result = this.vm.context.evalCode(code, "hook.js", { type: "global" });
    if (result.error) throw this.failureFrom(result.error);
    this.own(result.value);
  }

  /** Calls the export at `path` with arguments built in the sandbox from `input`; returns the settled JSON. */
  async invoke(path: readonly string[], builder: string, input: Json, label: string): Promise<Json> {
    const value = await this.call(path, builder, input);
    return this.toJson(value, label, LIMITS.outputBytes);
  }

  /**
   * Like `invoke`, but a settled `undefined` is a value, not a failure: plugin
   * hooks return nothing to mean "no change", and lambdas may too.
   */
  async invokeOptional(
    path: readonly string[],
    builder: string,
    input: Json,
    label: string,
  ): Promise<Json | undefined> {
    const value = await this.call(path, builder, input);
    if (this.vm.context.typeof(value) === "undefined") return undefined;
    return this.toJson(value, label, LIMITS.outputBytes);
  }

  /** Resolves the export, calls it and settles what it returned. */
  private async call(path: readonly string[], builder: string, input: Json): Promise<QuickJSHandle> {
    const firstLease = Math.max(0, this.meter.lease(0));
    const phase = this.pendingPhase ?? [];
    this.pendingPhase = null;
    const returned = this.callApi("invoke", [
      JSON.stringify(path),
      builder,
      JSON.stringify(input),
      firstLease,
      ...phase,
    ]);
    return this.settle(returned);
  }

  /** Strict JSON of a sandbox value, bounded by `maxBytes` of UTF-8. */
  toJson(value: QuickJSHandle, label: string, maxBytes: number): Json {
    this.meter.extend(maxBytes * FUEL.outputAllowancePerByte);
    const text = this.callApiText("serialize", [value, label, maxBytes]);
    if (text === "L")
      throw fail("hook_output_too_large", `${label} is larger than ${maxBytes} bytes of JSON`);
    if (text.startsWith("E")) throw fail("hook_invalid_return", text.slice(1));
    const json = text.slice(1);
    const bytes = utf8Bytes(json);
    if (bytes > maxBytes)
      throw fail(
        "hook_output_too_large",
        `${label} is ${bytes} bytes of JSON, over the limit of ${maxBytes}`,
      );
    return JSON.parse(json) as Json;
  }

  private async settle(handle: QuickJSHandle): Promise<QuickJSHandle> {
    const ctx = this.vm.context;
    for (;;) {
      const state = this.ownState(ctx.getPromiseState(handle));
      if (state.type === "fulfilled") return state.notAPromise ? handle : state.value;
      if (state.type === "rejected") throw this.failureFrom(state.error);
      if (this.vm.runtime.hasPendingJob()) {
        const ran = this.vm.runtime.executePendingJobs();
        if (ran.error) throw this.failureFrom(ran.error);
        if (this.meter.exhausted) throw this.timeout();
        continue;
      }
      // Only the host's own capabilities can still settle it; wait for one.
      if (this.pending.size > 0) {
        // Calls that run while this one waits arm the native meter for themselves.
        const turns = saveNativeTurns(this.engine);
        try {
          this.residency.park(this);
        } catch (error) {
          this.end();
          throw error;
        }
        // An abort rejects what is still pending: their results are dropped when the call ends.
        const waits: Promise<unknown>[] = Array.from(this.pending, (pending) => pending.outcome);
        const abort = this.aborted();
        if (abort !== undefined) waits.push(abort);
        await Promise.race(waits);
        if (this.abortedNow()) throw cancelled();
        await this.residency.resume(this);
        restoreNativeTurns(this.engine, turns);
        this.applySettled();
        continue;
      }
      throw fail("hook_invalid_return", "the hook returned a promise that never settled");
    }
  }

  private timeout(): SandboxFailure {
    return fail(
      "hook_timeout",
      this.phase === "module"
        ? `the hook's top level used its whole fuel budget (${this.budget} units)`
        : `the hook used its whole fuel budget (${this.budget} units)`,
    );
  }

  /** Fails the invocation for a limit that was hit even if the hook caught the error. */
  checkSticky(): void {
    if (this.cancelled) throw cancelled();
    if (this.meter.exhausted) throw this.timeout();
    if (this.logs.violation !== null) throw fail("hook_log_limit", this.logs.violation);
  }

  /** True when an allocation failure is plausible: the wasm cap or the runtime's limit is (nearly) reached. */
  underMemoryPressure(): boolean {
    const runtimeBytes = this.meter.liveAllocations() * 8;
    return nearMemoryCap(this.engine) || runtimeBytes + 64 * 1024 >= LIMITS.invocationMemoryBytes;
  }

  /** Classifies a thrown sandbox value. */
  failureFrom(errorHandle: QuickJSHandle, fallback?: string): SandboxFailure {
    this.own(errorHandle);
    let described: ErrorDescription | null = null;
    try {
      if (!this.meter.exhausted)
        described = describeError(this.vm.context, this.base.fn("describeError"), errorHandle, (handle) =>
          this.own(handle),
        );
    } catch (error) {
      if (!(error instanceof SandboxFailure)) throw error;
    }
    return new SandboxFailure(
      classify(described, {
        cancelled: this.cancelled,
        exhausted: this.meter.exhausted,
        timeout: this.timeout().error,
        logViolation: this.logs.violation,
        underMemoryPressure: () => this.underMemoryPressure(),
        ...(fallback === undefined ? {} : { fallback }),
      }),
    );
  }

  /** Stops charging and returns the fuel the hook used in the current phase. */
  finish(): number {
    if (this.pendingPhase !== null) {
      // No sandbox code ran in this phase, so nothing was leased in it either.
      this.pendingPhase = null;
      this.meter.finish();
      releaseNativeTurns(this.engine);
    } else {
      this.meter.finish();
      // The phase's loop turns end with it; what follows is the host's work.
      releaseNativeTurns(this.engine);
      try {
        // Log entries first (text), then the unspent lease (a number): at most two crossings.
        for (;;) {
          const ended = this.callApi("endPhase", []);
          // The lease is always a finite number and the log text starts with "[", which reads as NaN.
          const rest = this.vm.context.getNumber(ended);
          const isLogs = Number.isNaN(rest);
          if (isLogs) this.logs.accept(this.vm.context.getString(ended));
          else this.meter.refund(rest);
          if (!isLogs) break;
        }
      } catch (error) {
        if (!(error instanceof SandboxFailure)) throw error;
      }
    }
    const spent = this.fuelSpent();
    noteCpuMs(spent / FUEL_PER_MS);
    return spent;
  }

  /**
   * Fuel the phase used. An exhausted hook used the whole budget, whatever it
   * had leased but not spent; so did one the native meter stopped.
   */
  fuelSpent(): number {
    const whole = this.meter.exhausted || nativeTurnsSpent(this.engine);
    return whole ? Math.max(this.meter.used, this.budget) : this.meter.used;
  }

  /** The call is over: host results that arrive later are dropped. */
  end(): void {
    this.ended = true;
    this.pending.clear();
    // The scope frees its live handles, the latest first; a call may end twice (a failed park ends it early).
    if (this.handles?.alive === true) this.handles.dispose();
  }
}
