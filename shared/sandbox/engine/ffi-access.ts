// The library's protected fields that the sandbox's hot paths use directly.
// quickjs-emscripten offers no way to pass bytes to eval or to call a function
// without a handle object, a pointer array and a re-encoded string per
// argument; these fields are the only way around that without a custom
// build (as layout.ts reads the raw pointers). Callers fall back to the
// public API when a later version no longer has them.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

export interface RawContext {
  ctx: { value: number };
  module: {
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    HEAPU8: Uint8Array;
    UTF8ToString(pointer: number): string;
  };
  ffi: {
    QTS_Eval(
      ctx: number,
      code: number,
      length: number,
      filename: string,
      detect: number,
      flags: number,
    ): number;
    QTS_Call(ctx: number, fn: number, self: number, argc: number, argv: number): number;
    QTS_ResolveException(ctx: number, value: number): number;
    QTS_FreeValuePointer(ctx: number, value: number): void;
    QTS_NewString(ctx: number, text: number): number;
    QTS_NewFloat64(ctx: number, value: number): number;
    QTS_GetString(ctx: number, value: number): number;
    QTS_FreeCString(ctx: number, text: number): void;
    QTS_GetUndefined(): number;
    QTS_GetTrue(): number;
    QTS_GetFalse(): number;
  };
  memory: { heapValueHandle(pointer: number): QuickJSHandle };
}

const FFI_FUNCTIONS = [
  "QTS_Eval",
  "QTS_Call",
  "QTS_ResolveException",
  "QTS_FreeValuePointer",
  "QTS_NewString",
  "QTS_NewFloat64",
  "QTS_GetString",
  "QTS_FreeCString",
  "QTS_GetUndefined",
  "QTS_GetTrue",
  "QTS_GetFalse",
] as const;

/** The context's raw fields, or null when this version of the library does not have them all. */
export function rawContext(context: QuickJSContext): RawContext | null {
  const candidate = context as unknown as Partial<RawContext>;
  const { ctx, module, ffi, memory } = candidate;
  if (
    typeof ctx?.value !== "number" ||
    typeof module?._malloc !== "function" ||
    typeof module._free !== "function" ||
    typeof module.UTF8ToString !== "function" ||
    !(module.HEAPU8 instanceof Uint8Array) ||
    ffi === undefined ||
    FFI_FUNCTIONS.some((name) => typeof ffi[name] !== "function") ||
    typeof memory?.heapValueHandle !== "function"
  )
    return null;
  return candidate as RawContext;
}
