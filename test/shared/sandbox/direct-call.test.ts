// Calls through raw pointers (shared/sandbox/direct-call.ts) pass and return
// what the library's own API would, and fail closed when memory runs out.
import { describe, expect, it } from "vitest";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import type { QuickJSContext } from "quickjs-emscripten-core";
import { createEngineProvider } from "../../../shared/sandbox";
import { DirectCalls } from "../../../shared/sandbox/direct-call";
import { SandboxFailure } from "../../../shared/sandbox/failure";
import { LIMITS } from "../../../shared/limits";

// An instance of its own: one test fills its memory on purpose.
const engines = createEngineProvider(() => wasmModule);

async function withContext<T>(use: (context: QuickJSContext, direct: DirectCalls) => T): Promise<T> {
  const engine = await engines.get();
  const runtime = engine.module.newRuntime();
  const context = runtime.newContext();
  try {
    const direct = DirectCalls.for(context);
    if (direct === null) throw new Error("this build of the library has no direct calls");
    return use(context, direct);
  } finally {
    context.dispose();
    runtime.dispose();
  }
}

const describeArgs = `(...args) => JSON.stringify(args.map((a) => [typeof a, typeof a === "object" ? a.tag : a]))`;

describe("DirectCalls", () => {
  it("passes strings, numbers, booleans and handles as the library's callFunction does", async () => {
    const text = 'héllo, 世界 🌍 \\u2028 "quoted"';
    const [direct, library] = await withContext((context, calls) => {
      const fn = context.unwrapResult(context.evalCode(describeArgs));
      const object = context.unwrapResult(context.evalCode(`({ tag: "obj" })`));
      try {
        const viaDirect = calls.callText(fn, [text, 1.5, -0, true, false, object]);
        if (!viaDirect.ok) throw new Error("direct call failed");
        const args = [
          context.newString(text),
          context.newNumber(1.5),
          context.newNumber(-0),
          context.true,
          context.false,
          object,
        ];
        const viaLibrary = context.getString(
          context.unwrapResult(context.callFunction(fn, context.undefined, args)),
        );
        for (const handle of args.slice(0, 3)) handle.dispose();
        return [viaDirect.value, viaLibrary];
      } finally {
        fn.dispose();
        object.dispose();
      }
    });
    expect(direct).toBe(library);
    expect(JSON.parse(direct)).toEqual([
      ["string", text],
      ["number", 1.5],
      ["number", 0],
      ["boolean", true],
      ["boolean", false],
      ["object", "obj"],
    ]);
  });

  it("returns a handle the caller owns, and a thrown value as the error", async () => {
    const [value, error] = await withContext((context, calls) => {
      const make = context.unwrapResult(context.evalCode(`(n) => ({ doubled: n * 2 })`));
      const thrower = context.unwrapResult(context.evalCode(`(m) => { throw new TypeError(m); }`));
      try {
        const made = calls.call(make, [21]);
        const thrown = calls.call(thrower, ["nope"]);
        if (!made.ok || thrown.ok) throw new Error("unexpected outcome");
        return [
          made.value.consume((h) => context.dump(h) as unknown),
          thrown.error.consume((h) => context.dump(h) as { name: string; message: string }),
        ];
      } finally {
        make.dispose();
        thrower.dispose();
      }
    });
    expect(value).toEqual({ doubled: 42 });
    expect(error).toMatchObject({ name: "TypeError", message: "nope" });
  });

  it("an argument larger than the instance's memory fails the call closed, and the next call works", async () => {
    const outcome = await withContext((context, calls) => {
      const length = context.unwrapResult(context.evalCode(`(s) => s.length`));
      try {
        let failure: unknown;
        try {
          calls.call(length, ["x".repeat(LIMITS.sandboxMemoryBytes / 2)]);
        } catch (error) {
          failure = error;
        }
        const after = calls.call(length, ["four"]);
        if (!after.ok) throw new Error("the next call failed");
        return { failure, next: after.value.consume((h) => context.getNumber(h)) };
      } finally {
        length.dispose();
      }
    });
    expect(outcome.failure).toBeInstanceOf(SandboxFailure);
    expect((outcome.failure as SandboxFailure).error.code).toBe("hook_out_of_memory");
    expect(outcome.next).toBe(4);
  });
});
