// One QuickJS runtime and context with the host's side of the prelude bridge:
// the functions hook code reaches through the prelude (fuel leases, log
// refusals, encodings, host calls) and the interrupt handler. They are made
// once, before any image is taken, and serve whichever call is current: with
// memory images every call of an instance runs in this same runtime, restored
// to its image first.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { utf8Bytes } from "../json";
import { LIMITS } from "../limits";
import { base64DecodeUtf8, base64EncodeUtf8 } from "./base64";
import { DirectCalls } from "./direct-call";
import type { Instance } from "./instance";
import { FUEL } from "./fuel";
import { contextPointer, QUICKJS_POLL_RESET, runtimePointer } from "./layout";

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
  /** The prelude took `steps` steps of its own since `mark` (fuel.ts refunds their data price). */
  refundWalk(mark: number, steps: number): void;
  /** A built-in just grew the heap a lot: price the steps from here at once. */
  retune(): void;
}

export class Vm {
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
    readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
  ) {
    this.runtimePtr = runtimePointer(runtime);
    this.contextPtr = contextPointer(context);
    this.direct = DirectCalls.for(context);
    runtime.setInterruptHandler(() => this.onInterrupt());
    this.host = this.makeHost();
  }

  static create(engine: Instance): Vm {
    const runtime = engine.module.newRuntime();
    try {
      runtime.setMemoryLimit(LIMITS.invocationMemoryBytes);
      runtime.setMaxStackSize(LIMITS.stackBytes);
      return new Vm(runtime, runtime.newContext());
    } catch (error) {
      runtime.dispose();
      throw error;
    }
  }

  private onInterrupt(): boolean {
    const current = this.current;
    if (current !== null) return current.onInterrupt();
    // Our own set-up code: bounded, never charged to a hook.
    this.setupSpent += QUICKJS_POLL_RESET;
    return this.setupSpent > FUEL.setupSteps;
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
    const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle) => {
      const handle = ctx.newFunction(name, fn);
      ctx.setProp(host, name, handle);
      handle.dispose();
    };
    // Our own set-up code (a prelude's top level) borrows fuel too, never charged.
    define("lease", (amount) => {
      const requested = ctx.getNumber(amount);
      const current = this.current;
      return ctx.newNumber(current === null ? requested + FUEL.leaseChunk : current.lease(requested));
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
      const handle = ctx.newNumber(value);
      ctx.setProp(host, name, handle);
      handle.dispose();
    }
    return host;
  }

  dispose(): void {
    this.current = null;
    this.runtime.removeInterruptHandler();
    this.host.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}
