// Calls and evaluation through raw pointers (shared/sandbox/engine/direct-call.ts)
// pass and return what the library's own API would, and fail closed when
// memory runs out.
import { describe, expect, it } from "vitest";
import wasmModule from "../../../../shared/sandbox/wasm/quickjs-metered.wasm";
import type { QuickJSContext } from "quickjs-emscripten-core";
import { createEngineProvider } from "../../../../shared/sandbox";
import { DirectCalls, encodeSource } from "../../../../shared/sandbox/engine/direct-call";
import { SandboxFailure } from "../../../../shared/sandbox/engine/failure";
import { LIMITS } from "../../../../shared/limits";

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
  it("this build of the library has the fields direct calls need (no silent fallback to its slower API)", async () => {
    const engine = await engines.get();
    const runtime = engine.module.newRuntime();
    const context = runtime.newContext();
    try {
      expect(DirectCalls.for(context)).not.toBeNull();
    } finally {
      context.dispose();
      runtime.dispose();
    }
  });

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

describe("DirectCalls.evalStrictGlobal", () => {
  it("evaluates multi-byte text as the same string evalCode sees", async () => {
    const text = "héllo, 世界 🌍";
    const value = await withContext((context, calls) => {
      const result = calls.evalStrictGlobal(
        encodeSource(`${JSON.stringify(text)} + "|" + "${text}".length`),
        "t.js",
      );
      if (!result.ok) throw new Error(String(context.dump(result.error)));
      return result.value.consume((handle) => context.getString(handle));
    });
    expect(value).toBe(`${text}|${text.length}`);
  });

  it("runs as strict global code", async () => {
    const strict = await withContext((context, calls) => {
      const result = calls.evalStrictGlobal(
        encodeSource("(function () { return this === undefined; })()"),
        "t.js",
      );
      if (!result.ok) throw new Error(String(context.dump(result.error)));
      return result.value.consume((handle) => context.dump(handle) as unknown);
    });
    expect(strict).toBe(true);
  });

  it("returns a thrown error as the error handle, with the file name", async () => {
    const error = await withContext((context, calls) => {
      const result = calls.evalStrictGlobal(encodeSource("undeclared = 1;"), "named.js");
      if (result.ok) throw new Error("expected an error");
      return result.error.consume((handle) => context.dump(handle) as { name: string; stack: string });
    });
    expect(error.name).toBe("ReferenceError");
    expect(error.stack).toContain("named.js");
  });

  it("reports a syntax error, and the next evaluation works", async () => {
    const [first, second] = await withContext((context, calls) => {
      const bad = calls.evalStrictGlobal(encodeSource("let = ;"), "bad.js");
      const badName = bad.ok
        ? null
        : bad.error.consume((handle) => (context.dump(handle) as { name: string }).name);
      const good = calls.evalStrictGlobal(encodeSource("1 + 1"), "good.js");
      const goodValue = good.ok ? good.value.consume((handle) => context.getNumber(handle)) : null;
      return [badName, goodValue];
    });
    expect(first).toBe("SyntaxError");
    expect(second).toBe(2);
  });
});
