// Evaluating cached UTF-8 bytes (the prelude's path) gives what evalCode gives.
import { describe, expect, it } from "vitest";
import type { QuickJSContext } from "quickjs-emscripten-core";
import { workerdEngines } from "../../../shared/sandbox/wasm-workerd";
import { encodeSource, evalStrictGlobal, evaluatesBytes } from "../../../shared/sandbox/utf8-eval";

async function withContext<T>(use: (context: QuickJSContext) => T): Promise<T> {
  const engine = await workerdEngines.get();
  const runtime = engine.module.newRuntime();
  const context = runtime.newContext();
  try {
    return use(context);
  } finally {
    context.dispose();
    runtime.dispose();
  }
}

describe("evalStrictGlobal", () => {
  it("passes bytes to this build of the library (no silent fallback to re-encoding)", async () => {
    expect(await withContext(evaluatesBytes)).toBe(true);
  });

  it("evaluates multi-byte text as the same string evalCode sees", async () => {
    const text = "héllo, 世界 🌍";
    const value = await withContext((context) => {
      const result = evalStrictGlobal(
        context,
        encodeSource(`${JSON.stringify(text)} + "|" + "${text}".length`),
        "t.js",
      );
      if (result.error) throw new Error(String(context.dump(result.error)));
      return result.value.consume((handle) => context.getString(handle));
    });
    expect(value).toBe(`${text}|${text.length}`);
  });

  it("runs as strict global code", async () => {
    const strict = await withContext((context) => {
      const result = evalStrictGlobal(
        context,
        encodeSource("(function () { return this === undefined; })()"),
        "t.js",
      );
      if (result.error) throw new Error(String(context.dump(result.error)));
      return result.value.consume((handle) => context.dump(handle) as unknown);
    });
    expect(strict).toBe(true);
  });

  it("returns a thrown error as the error handle, with the file name", async () => {
    const error = await withContext((context) => {
      const result = evalStrictGlobal(context, encodeSource("undeclared = 1;"), "named.js");
      if (!result.error) throw new Error("expected an error");
      return result.error.consume((handle) => context.dump(handle) as { name: string; stack: string });
    });
    expect(error.name).toBe("ReferenceError");
    expect(error.stack).toContain("named.js");
  });

  it("reports a syntax error without leaking the source buffer into later evaluations", async () => {
    const [first, second] = await withContext((context) => {
      const bad = evalStrictGlobal(context, encodeSource("let = ;"), "bad.js");
      const badName = bad.error?.consume((handle) => (context.dump(handle) as { name: string }).name);
      const good = evalStrictGlobal(context, encodeSource("1 + 1"), "good.js");
      const goodValue = good.value?.consume((handle) => context.getNumber(handle));
      return [badName, goodValue];
    });
    expect(first).toBe("SyntaxError");
    expect(second).toBe(2);
  });
});
