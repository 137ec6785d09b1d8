// Evaluating source that every session evaluates (the prelude) from UTF-8
// bytes encoded once per isolate. `QuickJSContext.evalCode` encodes its
// string with emscripten's JS loop on every call: for the ~34 KB prelude that
// cost ~0.37 ms per session built in Node (~1 ms under workerd's profiler),
// against ~4 µs to copy cached bytes. The library offers no way to pass
// bytes, so this uses its protected fields (ffi-access.ts) and falls back to
// `evalCode` when they are not what this version has.
import { EvalFlags, type QuickJSContext, type QuickJSHandle } from "quickjs-emscripten-core";
import { rawContext } from "./ffi-access";

/** Whether `evalStrictGlobal` can pass bytes to this context (else it falls back to `evalCode`). */
export function evaluatesBytes(context: QuickJSContext): boolean {
  return rawContext(context) !== null;
}

/** Source text with its UTF-8 bytes, encoded once. */
export interface EncodedSource {
  text: string;
  bytes: Uint8Array;
}

export function encodeSource(text: string): EncodedSource {
  return { text, bytes: new TextEncoder().encode(text) };
}

export type EvalResult =
  | { value: QuickJSHandle; error?: undefined }
  | { error: QuickJSHandle; value?: undefined };

/** Evaluates `source` as strict global code, like `evalCode(text, filename, { type: "global", strict: true })`. */
export function evalStrictGlobal(
  context: QuickJSContext,
  source: EncodedSource,
  filename: string,
): EvalResult {
  const direct = rawContext(context);
  if (direct === null) return context.evalCode(source.text, filename, { type: "global", strict: true });
  const { ctx, module, ffi, memory } = direct;
  const length = source.bytes.length;
  const pointer = module._malloc(length + 1);
  if (pointer === 0) return context.evalCode(source.text, filename, { type: "global", strict: true });
  let result: number;
  try {
    // HEAPU8 is read after malloc: growing the memory replaces the view.
    module.HEAPU8.set(source.bytes, pointer);
    module.HEAPU8[pointer + length] = 0;
    const flags = EvalFlags.JS_EVAL_TYPE_GLOBAL | EvalFlags.JS_EVAL_FLAG_STRICT;
    result = ffi.QTS_Eval(ctx.value, pointer, length, filename, 0, flags);
  } finally {
    module._free(pointer);
  }
  const error = ffi.QTS_ResolveException(ctx.value, result);
  if (error !== 0) {
    ffi.QTS_FreeValuePointer(ctx.value, result);
    return { error: memory.heapValueHandle(error) };
  }
  return { value: memory.heapValueHandle(result) };
}
