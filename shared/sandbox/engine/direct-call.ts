// Calls into the sandbox without the library's per-call objects. Every
// crossing of a stage (invoke, serialize, endPhase) went through
// `newString`/`newNumber` (a handle object each, strings re-encoded by a JS
// loop), `callFunction` (a pointer array built, copied and freed through
// another handle) and `getString`; in workerd's profile of a hooked tool call
// that glue was ~0.1 ms of host CPU. Here arguments are made, passed and
// freed as raw pointers, strings are encoded by TextEncoder straight into
// wasm memory, and a text result is read without a handle.
//
// The prelude every session evaluates is passed as UTF-8 bytes encoded once
// per isolate: `evalCode` re-encoded its 34 KB with that JS loop for every
// session built (~0.37 ms in Node, ~1 ms under workerd's profiler).
import { EvalFlags, type QuickJSContext, type QuickJSHandle } from "quickjs-emscripten-core";
import { fail } from "./failure";
import { rawContext, type RawContext } from "./ffi-access";
import { err, ok, type Result } from "../../result";

export type DirectArg = string | number | boolean | QuickJSHandle;

export type DirectResult<T> = Result<T, QuickJSHandle>;

/** Source text with its UTF-8 bytes, encoded once. */
export interface EncodedSource {
  text: string;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

export function encodeSource(text: string): EncodedSource {
  return { text, bytes: encoder.encode(text) };
}

export class DirectCalls {
  private view: Int32Array;

  private constructor(private readonly raw: RawContext) {
    this.view = new Int32Array(raw.module.HEAPU8.buffer);
  }

  /** Direct calls for `context`, or null when the library's fields are not available (use its API then). */
  static for(context: QuickJSContext): DirectCalls | null {
    const raw = rawContext(context);
    return raw === null ? null : new DirectCalls(raw);
  }

  /** `fn(...args)` with `this` undefined; the caller owns the returned handle. */
  call(fn: QuickJSHandle, args: readonly DirectArg[]): DirectResult<QuickJSHandle> {
    return this.settled(this.callRaw(fn, args));
  }

  /** `fn(...args)` with `this` undefined, its result read as a string. */
  callText(fn: QuickJSHandle, args: readonly DirectArg[]): DirectResult<string> {
    const { ctx, module, ffi, memory } = this.raw;
    const result = this.callRaw(fn, args);
    const error = ffi.QTS_ResolveException(ctx.value, result);
    if (error !== 0) {
      ffi.QTS_FreeValuePointer(ctx.value, result);
      return err(memory.heapValueHandle(error));
    }
    try {
      const text = ffi.QTS_GetString(ctx.value, result);
      try {
        return ok(module.UTF8ToString(text));
      } finally {
        ffi.QTS_FreeCString(ctx.value, text);
      }
    } finally {
      ffi.QTS_FreeValuePointer(ctx.value, result);
    }
  }

  /** `source` as strict global code, like `evalCode(text, filename, { type: "global", strict: true })`. */
  evalStrictGlobal(source: EncodedSource, filename: string): DirectResult<QuickJSHandle> {
    const { ctx, ffi } = this.raw;
    const length = source.bytes.length;
    const code = this.allocate(length + 1);
    let result: number;
    try {
      const heap = this.raw.module.HEAPU8;
      heap.set(source.bytes, code);
      heap[code + length] = 0;
      const flags = EvalFlags.JS_EVAL_TYPE_GLOBAL | EvalFlags.JS_EVAL_FLAG_STRICT;
      result = ffi.QTS_Eval(ctx.value, code, length, filename, 0, flags);
    } finally {
      this.raw.module._free(code);
    }
    return this.settled(result);
  }

  /** A returned value pointer as a handle the caller owns, or the exception it stands for. */
  private settled(result: number): DirectResult<QuickJSHandle> {
    const { ctx, ffi, memory } = this.raw;
    const error = ffi.QTS_ResolveException(ctx.value, result);
    if (error !== 0) {
      ffi.QTS_FreeValuePointer(ctx.value, result);
      return err(memory.heapValueHandle(error));
    }
    return ok(memory.heapValueHandle(result));
  }

  private callRaw(fn: QuickJSHandle, args: readonly DirectArg[]): number {
    const { ctx, module, ffi } = this.raw;
    const owned: number[] = [];
    const argv = this.allocate(Math.max(1, args.length) * 4);
    try {
      for (const [i, arg] of args.entries()) {
        let value: number;
        if (typeof arg === "string") {
          value = this.newString(arg);
          owned.push(value);
        } else if (typeof arg === "number") {
          value = ffi.QTS_NewFloat64(ctx.value, arg);
          owned.push(value);
        } else if (typeof arg === "boolean") {
          value = arg ? ffi.QTS_GetTrue() : ffi.QTS_GetFalse();
        } else {
          value = arg.value;
        }
        // Taken after every allocation: one may have grown the memory.
        this.words()[(argv >> 2) + i] = value;
      }
      return ffi.QTS_Call(ctx.value, fn.value, ffi.QTS_GetUndefined(), args.length, argv);
    } finally {
      for (const value of owned) ffi.QTS_FreeValuePointer(ctx.value, value);
      module._free(argv);
    }
  }

  /** 32-bit words of wasm memory; growing the memory replaces its buffer, and then the view. */
  private words(): Int32Array {
    const buffer = this.raw.module.HEAPU8.buffer;
    if (this.view.buffer !== buffer) this.view = new Int32Array(buffer);
    return this.view;
  }

  /** Wasm memory for the call's own use; running out fails the call as the hook's memory would. */
  private allocate(bytes: number): number {
    const pointer = this.raw.module._malloc(bytes);
    if (pointer === 0)
      throw fail("hook_out_of_memory", "the sandbox has no memory left for the call's input");
    return pointer;
  }

  /** A sandbox string; `text` must hold no NUL (JSON text and the host's own labels do not). */
  private newString(text: string): number {
    const { ctx, module, ffi } = this.raw;
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const capacity = text.length * 3 + 1;
    const buffer = this.allocate(capacity);
    try {
      const heap = module.HEAPU8;
      const { written } = encoder.encodeInto(text, heap.subarray(buffer, buffer + capacity - 1));
      heap[buffer + written] = 0;
      return ffi.QTS_NewString(ctx.value, buffer);
    } finally {
      module._free(buffer);
    }
  }
}
