// One QuickJS runtime and context with the host's side of the prelude bridge:
// the functions hook code reaches through the prelude (fuel leases, log
// refusals, encodings, host calls) and the interrupt handler. They are made
// once, before any image is taken, and serve whichever call is current: with
// memory images every call of an instance runs in this same runtime, restored
// to its image first.
import {
  Scope,
  UsingDisposable,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
} from "quickjs-emscripten-core";
import { utf8Bytes } from "../../json";
import { LIMITS } from "../../limits";
import { base64DecodeUtf8, base64EncodeUtf8 } from "./base64";
import { DirectCalls } from "./direct-call";
import type { Instance } from "./instance";
import { contextPointer, QUICKJS_POLL_RESET, runtimePointer } from "./layout";

/**
 * Fuel handed to the prelude per host round trip, so cheap calls stay in JS.
 * The call's meter grants it (FUEL.leaseChunk); so does the VM to our own
 * set-up code, which no meter charges.
 */
export const LEASE_CHUNK = 4096;
/** Steps allowed for our own set-up code (a prelude's top level), never charged to a hook (FUEL.setupSteps). */
export const SETUP_STEPS = 20_000_000;

/** What the host functions and the interrupt handler serve: the call that is running. */
export interface HostBinding {
  /** The interrupt handler: true stops the VM with an uncatchable error. */
  onInterrupt(): boolean;
  /** The prelude borrows fuel; -1 refuses. */
  lease(amount: number): number;
  logRefused(reason: string): void;
  /** An async host capability: returns the promise handed to hook code. */
  startHostCall(name: string, input: string): QuickJSHandle;
  /** The prelude begins a loop of its own over hook data; returns a mark for refundWalk. */
  markWalk(pure: boolean): number;
  /** The prelude took `steps` steps of its own since `mark` (../call/fuel.ts refunds their data price). */
  refundWalk(mark: number, steps: number): void;
  /** A built-in just grew the heap a lot: price the steps from here at once. */
  retune(): void;
}

/**
 * With memory images the VM lives as long as its instance, never disposed:
 * every image holds its runtime, context and host object. A call in a runtime
 * of its own disposes its VM when it ends (a UsingDisposable, so a Scope can
 * own it).
 */
export class Vm extends UsingDisposable {
  /** The call the host functions serve; null while none runs (set-up code then). */
  current: HostBinding | null = null;
  /** The prelude's `host` argument: made once, so every base built on this VM shares it. */
  readonly host: QuickJSHandle;
  readonly direct: DirectCalls | null;
  readonly runtimePtr: number;
  readonly contextPtr: number;
  /** Interpreter steps our own set-up code (preludes) took since the last call. */
  private setupSpent = 0;

  private constructor(
    /** Owns the runtime, the context and the host object; disposing it frees them in reverse. */
    private readonly scope: Scope,
    readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
  ) {
    super();
    this.runtimePtr = runtimePointer(runtime);
    this.contextPtr = contextPointer(context);
    this.direct = DirectCalls.for(context);
    runtime.setInterruptHandler(() => this.onInterrupt());
    this.host = scope.manage(this.makeHost());
  }

  static create(engine: Instance): Vm {
    const scope = new Scope();
    try {
      const runtime = scope.manage(engine.module.newRuntime());
      runtime.setMemoryLimit(LIMITS.invocationMemoryBytes);
      runtime.setMaxStackSize(LIMITS.stackBytes);
      return new Vm(scope, runtime, scope.manage(runtime.newContext()));
    } catch (error) {
      scope.dispose();
      throw error;
    }
  }

  private onInterrupt(): boolean {
    const current = this.current;
    if (current !== null) return current.onInterrupt();
    // Our own set-up code: bounded, never charged to a hook.
    this.setupSpent += QUICKJS_POLL_RESET;
    return this.setupSpent > SETUP_STEPS;
  }

  /** Starts counting set-up steps afresh (before building a base). */
  resetSetup(): void {
    this.setupSpent = 0;
  }

  private binding(): HostBinding {
    const current = this.current;
    if (current === null) throw new Error("no call is running in this sandbox");
    return current;
  }

  private makeHost(): QuickJSHandle {
    const ctx = this.context;
    const host = ctx.newObject();
    const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle) =>
      ctx.newFunction(name, fn).consume((handle) => ctx.setProp(host, name, handle));
    // Our own set-up code (a prelude's top level) borrows fuel too, never charged.
    define("lease", (amount) => {
      const requested = ctx.getNumber(amount);
      const current = this.current;
      return ctx.newNumber(current === null ? requested + LEASE_CHUNK : current.lease(requested));
    });
    define("logRefused", (reason) => {
      this.current?.logRefused(ctx.getString(reason));
      return ctx.undefined;
    });
    define("walkMark", (pure) =>
      ctx.newNumber(this.current?.markWalk(ctx.typeof(pure) === "boolean" && ctx.dump(pure) === true) ?? -1),
    );
    define("walkRefund", (mark, steps) => {
      this.current?.refundWalk(ctx.getNumber(mark), ctx.getNumber(steps));
      return ctx.undefined;
    });
    define("retune", () => {
      this.current?.retune();
      return ctx.undefined;
    });
    define("utf8Bytes", (text) => ctx.newNumber(utf8Bytes(ctx.getString(text))));
    define("base64Encode", (value) => ctx.newString(base64EncodeUtf8(ctx.getString(value))));
    define("base64Decode", (value) => {
      const decoded = base64DecodeUtf8(ctx.getString(value));
      return ctx.newString(decoded instanceof Error ? "E" + decoded.message : "V" + decoded);
    });
    define("call", (name, input) => this.binding().startHostCall(ctx.getString(name), ctx.getString(input)));
    for (const [name, value] of [
      ["logEntries", LIMITS.logEntries],
      ["logDataBytes", LIMITS.logDataBytes],
      ["logMessageChars", LIMITS.logMessageChars],
    ] as const) {
      ctx.newNumber(value).consume((handle) => ctx.setProp(host, name, handle));
    }
    return host;
  }

  get alive(): boolean {
    return this.scope.alive;
  }

  dispose(): void {
    this.current = null;
    this.runtime.removeInterruptHandler();
    this.scope.dispose();
  }
}
