// One invocation's sandbox: a fresh runtime and context, the prelude, the
// meter and the log collector. Nothing is shared with other sessions, and per
// call values reach hook code only as call arguments.
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSDeferredPromise,
} from "quickjs-emscripten-core";
import { utf8Bytes, type Json } from "../json";
import { LIMITS } from "../limits";
import { base64DecodeUtf8, base64EncodeUtf8 } from "./base64";
import { classify, describeError, type ErrorDescription } from "./classify";
import { nearMemoryCap, type Engine } from "./engine";
import { randomState } from "./seed";
import { fail, SandboxFailure } from "./failure";
import { FUEL, FuelMeter } from "./fuel";
import { DirectCalls, encodeSource, type DirectResult, type EncodedSource } from "./direct-call";
import { contextPointer, runtimePointer } from "./layout";
import { LogCollector } from "./logs";
import { buildPrelude, type PreludeExtension } from "./prelude";

/** An async capability the host lends to a hook (request hooks, plugins). */
export type HostCall = (input: Json) => Promise<Json>;

export interface SessionOptions {
  extensions: readonly PreludeExtension[];
  /** The call's budget (the module phase passes its own to `begin`). */
  fuel: number;
  hostCalls?: Readonly<Record<string, HostCall>>;
}

/** Which phase the meter is charging: the module's top level or the call. */
export type Phase = "module" | "call";

type ApiArg = string | number | boolean | QuickJSHandle;

const preludeCache = new Map<string, EncodedSource>();
function preludeFor(extensions: readonly PreludeExtension[]): EncodedSource {
  const key = extensions.map((e) => e.name).join("+");
  let source = preludeCache.get(key);
  if (source === undefined) {
    source = encodeSource(buildPrelude(extensions));
    preludeCache.set(key, source);
  }
  return source;
}

export class Session {
  readonly logs = new LogCollector();
  readonly meter: FuelMeter;
  private readonly handles: QuickJSHandle[] = [];
  private readonly apiFunctions = new Map<string, QuickJSHandle>();
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly inflight = new Set<Promise<void>>();
  private api: QuickJSHandle | undefined;
  /** Calls without the library's per-call objects (direct-call.ts); null falls back to its API. */
  private readonly direct: DirectCalls | null;
  private closed = false;
  private hostCalls: Readonly<Record<string, HostCall>> | undefined;
  private phase: Phase = "call";
  /** The clock and random state of a phase that has begun but not reached the sandbox yet. */
  private pendingPhase: [number, number, number, number, number] | null = null;

  /** The current phase's own budget (the meter's may grow by platform allowances). */
  budget: number;
  /** The call's budget, fixed when the session opened. */
  readonly callBudget: number;

  private constructor(
    readonly engine: Engine,
    readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
    fuel: number,
  ) {
    this.budget = fuel;
    this.callBudget = fuel;
    this.meter = new FuelMeter(fuel, engine, contextPointer(context), runtimePointer(runtime));
    this.direct = DirectCalls.for(context);
  }

  static open(engine: Engine, options: SessionOptions): Session {
    const runtime = engine.module.newRuntime();
    let context: QuickJSContext;
    try {
      runtime.setMemoryLimit(LIMITS.invocationMemoryBytes);
      runtime.setMaxStackSize(LIMITS.stackBytes);
      context = runtime.newContext();
    } catch (error) {
      runtime.dispose();
      throw error;
    }
    const session = new Session(engine, runtime, context, options.fuel);
    session.hostCalls = options.hostCalls;
    try {
      runtime.setInterruptHandler(() => session.meter.onInterrupt());
      session.installPrelude(options);
    } catch (error) {
      session.close();
      throw error;
    }
    return session;
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  private installPrelude(options: SessionOptions): void {
    const ctx = this.context;
    const prelude = preludeFor(options.extensions);
    let evaluated: DirectResult<QuickJSHandle>;
    if (this.direct !== null) {
      evaluated = this.direct.evalStrictGlobal(prelude, "prelude.js");
    } else {
      const result = ctx.evalCode(prelude.text, "prelude.js", { type: "global", strict: true });
      evaluated = result.error ? { ok: false, error: result.error } : { ok: true, value: result.value };
    }
    if (!evaluated.ok) throw this.failureFrom(evaluated.error, "the sandbox prelude failed");
    const preludeFn = this.keep(evaluated.value);
    const host = this.keep(ctx.newObject());
    const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle) => {
      const handle = ctx.newFunction(name, fn);
      ctx.setProp(host, name, handle);
      handle.dispose();
    };
    define("lease", (amount) => ctx.newNumber(this.meter.lease(ctx.getNumber(amount))));
    define("logRefused", (reason) => {
      this.logs.refuse(ctx.getString(reason));
      return ctx.undefined;
    });
    define("utf8Bytes", (text) => ctx.newNumber(utf8Bytes(ctx.getString(text))));
    define("base64Encode", (value) => ctx.newString(base64EncodeUtf8(ctx.getString(value))));
    define("base64Decode", (value) => {
      const decoded = base64DecodeUtf8(ctx.getString(value));
      return ctx.newString(decoded instanceof Error ? "E" + decoded.message : "V" + decoded);
    });
    define("call", (name, input) => this.startHostCall(ctx.getString(name), ctx.getString(input)));
    for (const [name, value] of [
      ["logEntries", LIMITS.logEntries],
      ["logDataBytes", LIMITS.logDataBytes],
      ["logMessageChars", LIMITS.logMessageChars],
    ] as const) {
      const handle = ctx.newNumber(value);
      ctx.setProp(host, name, handle);
      handle.dispose();
    }
    const api = ctx.callFunction(preludeFn, ctx.undefined, host);
    if (api.error) throw this.failureFrom(api.error, "the sandbox prelude failed");
    this.api = this.keep(api.value);
    // The helpers every call uses, looked up while the session is being prepared.
    for (const name of ["invoke", "serialize", "endPhase"]) this.apiFunction(this.api, name);
  }

  /** Lends capabilities for the coming call (a pre-warmed session gets them only at call time). */
  setHostCalls(hostCalls: Readonly<Record<string, HostCall>> | undefined): void {
    this.hostCalls = hostCalls;
  }

  private startHostCall(name: string, inputText: string): QuickJSHandle {
    const ctx = this.context;
    const deferred = ctx.newPromise();
    this.deferreds.add(deferred);
    const hostCall =
      this.hostCalls !== undefined && Object.hasOwn(this.hostCalls, name) ? this.hostCalls[name] : undefined;
    const settled = (async () => {
      try {
        if (!hostCall) throw new Error(`no host capability named ${JSON.stringify(name)}`);
        const value = await hostCall(JSON.parse(inputText) as Json);
        if (this.closed) return;
        const handle = ctx.newString(JSON.stringify(value));
        deferred.resolve(handle);
        handle.dispose();
      } catch (error) {
        if (this.closed) return;
        const handle = ctx.newError(error instanceof Error ? error.message : String(error));
        deferred.reject(handle);
        handle.dispose();
      }
    })();
    const tracked: Promise<void> = settled.finally(() => {
      this.inflight.delete(tracked);
      if (!this.closed) {
        this.deferreds.delete(deferred);
        deferred.dispose();
      }
    });
    this.inflight.add(tracked);
    return deferred.handle.dup();
  }

  /**
   * The api helper's function, looked up once per session: the api object is
   * the prelude's private one (hook code never sees it), so its functions stay
   * the same, and each lookup would cost a property-name string and a crossing.
   */
  private apiFunction(api: QuickJSHandle, name: string): QuickJSHandle {
    let fn = this.apiFunctions.get(name);
    if (fn === undefined) {
      fn = this.keep(this.context.getProp(api, name));
      this.apiFunctions.set(name, fn);
    }
    return fn;
  }

  /** The api helper `name`, once the phase it runs in has started. */
  private apiCallee(name: string): QuickJSHandle {
    const api = this.api;
    if (!api) throw new Error("sandbox session has no prelude");
    if (name !== "invoke") this.startPhase();
    return this.apiFunction(api, name);
  }

  /** Calls an api helper; the caller owns the returned handle. */
  private callApi(name: string, args: readonly ApiArg[]): QuickJSHandle {
    const fn = this.apiCallee(name);
    if (this.direct !== null) {
      const result = this.direct.call(fn, args);
      if (!result.ok) throw this.failureFrom(result.error);
      return result.value;
    }
    const ctx = this.context;
    const owned: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => {
        if (typeof arg === "object") return arg;
        const handle =
          typeof arg === "string"
            ? ctx.newString(arg)
            : typeof arg === "number"
              ? ctx.newNumber(arg)
              : arg
                ? ctx.true
                : ctx.false;
        owned.push(handle);
        return handle;
      });
      const result = ctx.callFunction(fn, ctx.undefined, handles);
      if (result.error) throw this.failureFrom(result.error);
      return result.value;
    } finally {
      for (const handle of owned) handle.dispose();
    }
  }

  callApiText(name: string, args: readonly ApiArg[]): string {
    if (this.direct !== null) {
      const result = this.direct.callText(this.apiCallee(name), args);
      if (!result.ok) throw this.failureFrom(result.error);
      return result.value;
    }
    const handle = this.callApi(name, args);
    try {
      return this.context.getString(handle);
    } finally {
      handle.dispose();
    }
  }

  /**
   * Starts a phase: fixes the clock and random seed (through the prelude's
   * private api, never through globals), then charges `budget` units of fuel
   * to the hook from zero. The module phase (top level) and the call each get
   * their own budget, so a pre-warmed session and a fresh one account the
   * same way.
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
    this.callApi("setCall", pending).dispose();
  }

  /**
   * Rehearses a call between phases, so uncharged: the prelude's stand-in for
   * the hook (api.invoke with a null path) is called on `sample` through the
   * crossings a call makes, and what it returns is serialised and dropped.
   * The call then meets no first-use costs on those paths. What the
   * serialisation says is ignored: a top level that vandalised prototypes
   * fails its call, not its module phase, as without a rehearsal.
   */
  rehearse(builder: string, sample: Json): void {
    const returned = this.callApi("invoke", ["null", builder, JSON.stringify(sample), 0]);
    try {
      this.context.getPromiseState(returned);
      this.callApiText("serialize", [returned, "rehearsal", LIMITS.outputBytes]);
    } finally {
      returned.dispose();
    }
    // Takes back what the serialisation leased, as the end of a phase does.
    this.callApi("endPhase", []).dispose();
  }

  /** Runs the compiled module's top level. */
  evaluate(code: string): void {
    this.startPhase();
    const result = this.context.evalCode(code, "hook.js", { type: "global" });
    if (result.error) throw this.failureFrom(result.error);
    result.value.dispose();
  }

  /** Calls the export at `path` with arguments built in the sandbox from `input`; returns the settled JSON. */
  async invoke(path: readonly string[], builder: string, input: Json, label: string): Promise<Json> {
    const value = await this.call(path, builder, input);
    try {
      return this.toJson(value, label, LIMITS.outputBytes);
    } finally {
      value.dispose();
    }
  }

  /**
   * Like `invoke`, but a settled `undefined` is a value, not a failure: plugin
   * hooks return nothing to mean "no change" (seed 003), and lambdas may too.
   */
  async invokeOptional(
    path: readonly string[],
    builder: string,
    input: Json,
    label: string,
  ): Promise<Json | undefined> {
    const value = await this.call(path, builder, input);
    try {
      if (this.context.typeof(value) === "undefined") return undefined;
      return this.toJson(value, label, LIMITS.outputBytes);
    } finally {
      value.dispose();
    }
  }

  /** Resolves the export, calls it and settles what it returned; the caller owns the handle. */
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
    const ctx = this.context;
    let current = handle;
    try {
      for (;;) {
        const state = ctx.getPromiseState(current);
        if (state.type === "fulfilled") {
          if (state.notAPromise) return current;
          current.dispose();
          current = state.value;
          return current;
        }
        if (state.type === "rejected") throw this.failureFrom(state.error);
        if (this.runtime.hasPendingJob()) {
          const ran = this.runtime.executePendingJobs();
          if (ran.error) throw this.failureFrom(ran.error);
          if (this.meter.exhausted) throw this.timeout();
          continue;
        }
        // Only the host's own capabilities can still settle it; wait for one.
        if (this.inflight.size > 0) {
          await Promise.race(this.inflight);
          continue;
        }
        throw fail("hook_invalid_return", "the hook returned a promise that never settled");
      }
    } catch (error) {
      if (current.alive) current.dispose();
      throw error;
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
    if (this.meter.exhausted) throw this.timeout();
    if (this.logs.violation !== null) throw fail("hook_log_limit", this.logs.violation);
  }

  /** True when an allocation failure is plausible: the wasm cap or the runtime's limit is (nearly) reached. */
  underMemoryPressure(): boolean {
    const runtimeBytes = this.meter.liveAllocations() * 8;
    return nearMemoryCap(this.engine) || runtimeBytes + 64 * 1024 >= LIMITS.invocationMemoryBytes;
  }

  /** Classifies a thrown sandbox value (consumes the handle). */
  failureFrom(errorHandle: QuickJSHandle, fallback?: string): SandboxFailure {
    let described: ErrorDescription | null = null;
    try {
      if (!this.meter.exhausted && this.api) {
        described = describeError(this.context, this.api, errorHandle);
      }
    } catch (error) {
      if (!(error instanceof SandboxFailure)) throw error;
    } finally {
      errorHandle.dispose();
    }
    return new SandboxFailure(
      classify(described, {
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
    } else if (!this.closed && this.api) {
      this.meter.finish();
      try {
        // Log entries first (text), then the unspent lease (a number): at most two crossings.
        for (;;) {
          const ended = this.callApi("endPhase", []);
          // The lease is always a finite number and the log text starts with "[", which reads as NaN.
          const rest = this.context.getNumber(ended);
          const isLogs = Number.isNaN(rest);
          if (isLogs) this.logs.accept(this.context.getString(ended));
          else this.meter.refund(rest);
          ended.dispose();
          if (!isLogs) break;
        }
      } catch (error) {
        if (!(error instanceof SandboxFailure)) throw error;
      }
    }
    // An exhausted hook used the whole budget, whatever it had leased but not spent.
    return this.meter.exhausted ? Math.max(this.meter.used, this.budget) : this.meter.used;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const deferred of this.deferreds) deferred.dispose();
    this.deferreds.clear();
    for (const handle of this.handles.splice(0).toReversed()) if (handle.alive) handle.dispose();
    this.runtime.removeInterruptHandler();
    this.context.dispose();
    this.runtime.dispose();
  }
}
