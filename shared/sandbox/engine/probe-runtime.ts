// The raw pointers of the library's runtime and context, and runtimes made
// for start-up probes (layout.ts, code-layout.ts).
import {
  Scope,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";

/** QuickJS resets the per-context interrupt counter to this before every poll. */
export const QUICKJS_POLL_RESET = 10_000;

// The library keeps the raw pointers in protected fields; reading them is the
// only way to locate the structs without a custom build.
interface WithContextPointer {
  ctx?: { value?: unknown };
}
interface WithRuntimePointer {
  rt?: { value?: unknown };
}

export function contextPointer(context: QuickJSContext): number {
  const value = (context as unknown as WithContextPointer).ctx?.value;
  if (typeof value !== "number") throw new Error("sandbox: cannot read the QuickJS context pointer");
  return value;
}

export function runtimePointer(runtime: QuickJSRuntime): number {
  const value = (runtime as unknown as WithRuntimePointer).rt?.value;
  if (typeof value !== "number") throw new Error("sandbox: cannot read the QuickJS runtime pointer");
  return value;
}

/** Runs `probe` in a runtime and context made for it, both freed afterwards (the context first). */
export function withProbeRuntime<T>(
  module: QuickJSWASMModule,
  probe: (runtime: QuickJSRuntime, context: QuickJSContext) => T,
): T {
  return Scope.withScope((scope) => {
    const runtime = scope.manage(module.newRuntime());
    return probe(runtime, scope.manage(runtime.newContext()));
  });
}
