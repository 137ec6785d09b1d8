// Workspace files in the sandbox: reading a module's export shape at compile
// time, and running one exported function with a JSON input.
import { describe, expect, it } from "vitest";
import type { Json } from "../../../shared/json";
import { inspectModule, runModuleExport, type PreludeExtension } from "../../../shared/sandbox";
import { expectNextCallHealthy, failure, failureOf, moduleCode, okValue } from "./helpers";

const run = (code: string, exportPath: string[], input: Json = {}, extensions?: PreludeExtension[]) =>
  runModuleExport({
    code,
    exportPath,
    input,
    nowMs: Date.UTC(2031, 0, 1),
    seed: "req_1",
    ...(extensions ? { extensions } : {}),
  });

describe("inspectModule", () => {
  it("reads named exports with their types and a plain-object default with its members", async () => {
    const code = moduleCode(`
      const hooks = { "chat.params": (p) => p, tool: () => [], extra: 1, get lazy() { return 1; } };
      return { main() {}, VERSION: "1", list: [], nothing: null, default: hooks };`);
    const shape = await inspectModule(code);
    expect(shape).toEqual({
      ok: true,
      value: {
        named: [
          { name: "main", type: "function" },
          { name: "VERSION", type: "string" },
          { name: "list", type: "array" },
          { name: "nothing", type: "null" },
        ],
        default: {
          type: "object",
          plainObject: true,
          members: [
            { key: "chat.params", type: "function" },
            { key: "tool", type: "function" },
            { key: "extra", type: "number" },
            { key: "lazy", type: "accessor" },
          ],
        },
      },
    });
  });

  it("tells class instances and functions from object literals, and never runs a member getter", async () => {
    const code = moduleCode(`
      class Hooks { tool() { return []; } }
      return { default: new Hooks() };`);
    expect(await inspectModule(code)).toMatchObject({
      ok: true,
      value: { default: { plainObject: false, members: [] } },
    });
    const getter = moduleCode(`return { default: { get tool() { throw new Error("ran"); } } };`);
    expect(await inspectModule(getter)).toMatchObject({
      ok: true,
      value: { default: { members: [{ key: "tool", type: "accessor" }] } },
    });
  });

  it("a module that defines no exports, throws or never ends at its top level fails with a sandbox code", async () => {
    expect(await inspectModule("var x = 1;")).toEqual({
      ok: false,
      error: failure("hook_invalid_module", /no exports/),
    });
    expect(await inspectModule(moduleCode(`throw new Error("top");`))).toEqual({
      ok: false,
      error: failure("hook_threw", /top/),
    });
    expect(await inspectModule(moduleCode(`for (;;) {}`))).toEqual({
      ok: false,
      error: failure("hook_timeout"),
    });
    await expectNextCallHealthy();
  });
});

describe("runModuleExport", () => {
  const code = moduleCode(`
    return {
      main(input) { return { seen: input, now: Date.now() }; },
      async later(input) { await null; return input.n + 1; },
      nothing() {},
      default: { "tool.execute.after": (x) => ({ ...x, touched: true }) },
    };`);

  it("passes the input as the single argument and returns the settled value (sync or async)", async () => {
    expect(okValue(await run(code, ["main"], { a: 1 }))).toEqual({
      value: { seen: { a: 1 }, now: Date.UTC(2031, 0, 1) },
    });
    expect(okValue(await run(code, ["later"], { n: 1 }))).toEqual({ value: 2 });
    expect(okValue(await run(code, ["default", "tool.execute.after"], { x: 1 }))).toEqual({
      value: { x: 1, touched: true },
    });
  });

  it("undefined is a result (no value), not a failure", async () => {
    expect(okValue(await run(code, ["nothing"]))).toEqual({});
  });

  it("a missing export is hook_invalid_module", async () => {
    expect(failureOf(await run(code, ["absent"]))).toEqual(
      failure("hook_invalid_module", /"absent" is missing/),
    );
  });

  it("without host capabilities a host call rejects inside the hook with a clear message", async () => {
    const host: PreludeExtension = {
      name: "test-host-namespace",
      source: `defineProp(G, "host", { value: objFreeze({ lambda: (v) => callHost("lambda", v) }) });`,
    };
    const calling = moduleCode(`return { async main() { return await host.lambda({ x: 1 }); } };`);
    expect(failureOf(await run(calling, ["main"], {}, [host]))).toEqual(
      failure("hook_threw", /no host capability named "lambda"/),
    );
  });
});
