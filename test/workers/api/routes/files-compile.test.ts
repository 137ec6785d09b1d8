// Workspace files: compile diagnostics for lib files and plugins, and the
// test console that runs one export or hook of a version.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectProblem, json } from "../../../helpers/api";
import {
  fileFixture,
  LIB_SOURCE,
  PLUGIN_SOURCE,
  post,
  saveFile,
  testFile,
  type FileFixture,
} from "./files-harness";

interface Diagnostic {
  code: string;
  message: string;
  line: number;
  column: number;
}

async function diagnosticsOf(f: FileFixture, path: string, source: string): Promise<Diagnostic[]> {
  await saveFile(f, path, source);
  const problem = await expectProblem(await post(f, path, "/compile"), 422, "compile_failed");
  return problem.diagnostics as Diagnostic[];
}

describe("compile", () => {
  it("a lib file compiles and records its exported functions (not its constants)", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/request-policy.ts", LIB_SOURCE("a"));
    const res = await json(await post(f, "lib/request-policy.ts", "/compile"), 200);
    expect(res).toMatchObject({
      version: 1,
      path: "lib/request-policy.ts",
      kind: "lib",
      exports: ["enrich", "main"],
      compiledBytes: expect.any(Number),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("a plugin compiles and records its hooks in the documented order", async () => {
    const f = await fileFixture();
    await saveFile(
      f,
      "plugins/all.js",
      `export default {
        "tool.execute.after": (x) => x,
        tool: () => [],
        async "chat.params"(p) { return p; },
        "tool.execute.before": function (x) { return x; },
      };`,
    );
    expect(await json(await post(f, "plugins/all.js", "/compile"), 200)).toMatchObject({
      kind: "plugin",
      exports: ["tool", "chat.params", "tool.execute.before", "tool.execute.after"],
    });
  });

  it("a plugin key that is not a hook is unknown_plugin_hook at its line; a non-function hook is invalid_plugin_hook", async () => {
    const f = await fileFixture();
    const found = await diagnosticsOf(
      f,
      "plugins/bad.ts",
      `export default {\n  "chat.param": (p: unknown) => p,\n  tool: [],\n};\n`,
    );
    expect(found.map(({ code, line }) => ({ code, line }))).toEqual([
      { code: "unknown_plugin_hook", line: 2 },
      { code: "invalid_plugin_hook", line: 3 },
    ]);
    expect(found[0]?.message).toContain('"chat.param"');
  });

  it("plugin shapes: named exports, no default, a function default, an empty object", async () => {
    const f = await fileFixture();
    const cases: [string, string[]][] = [
      ["export const x = 1;\nexport default { tool: () => [] };", ["export_not_allowed"]],
      ["export function tool() { return []; }", ["export_not_allowed", "missing_export"]],
      ["export default function tool() { return []; }", ["invalid_plugin"]],
      ["export default {};", ["missing_plugin_hook"]],
      ["const hooks = { get tool() { return () => []; } };\nexport default hooks;", ["invalid_plugin_hook"]],
    ];
    for (const [source, codes] of cases) {
      const found = await diagnosticsOf(f, "plugins/shape.ts", source);
      expect(
        found.map((d) => d.code),
        source,
      ).toEqual(codes);
    }
  });

  it("lib shapes: a default export, no export, no function export; imports are refused for files too", async () => {
    const f = await fileFixture();
    const cases: [string, string[]][] = [
      ["export default function main() { return 1; }", ["export_not_allowed"]],
      ["const x = 1;", ["missing_export"]],
      ["export const x = 1;", ["missing_export"]],
      ['import { x } from "./other";\nexport function main() { return x; }', ["import_not_allowed"]],
      ["export function main( {", ["syntax_error"]],
      ["throw new Error('top');\nexport function main() {}", ["evaluation_failed"]],
    ];
    for (const [source, codes] of cases) {
      const found = await diagnosticsOf(f, "lib/shape.ts", source);
      expect(
        found.map((d) => d.code),
        source,
      ).toEqual(codes);
    }
  });
});

describe("test console", () => {
  it("runs main by default with input as its single argument and records the run with the version", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    const run = await testFile(f, "lib/p.ts", { input: { text: "hi" } });
    expect(run).toMatchObject({ version: 1, export: "main", ok: true, value: { text: "hi!" }, logs: [] });
    expect(run.durationMs).toEqual(expect.any(Number));
    const stored = await env.DB.prepare("select * from hook_test_runs where id = ?").bind(run.id).first();
    expect(stored).toMatchObject({ target: "file:lib/p.ts", version: 1, stage: "main", ok: 1, counts: 1 });
  });

  it("runs a named async export and a plugin hook; undefined is a valid (no change) outcome", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    expect(await testFile(f, "lib/p.ts", { export: "enrich", input: { messages: ["a"] } })).toMatchObject({
      ok: true,
      value: { messages: ["a", "!"] },
    });
    await saveFile(f, "plugins/t.ts", PLUGIN_SOURCE(0.3));
    expect(
      await testFile(f, "plugins/t.ts", { hook: "chat.params", input: { temperature: 1 } }),
    ).toMatchObject({
      hook: "chat.params",
      ok: true,
      value: { temperature: 0.3 },
    });
    const none = await testFile(f, "plugins/t.ts", { hook: "tool.execute.after", input: {} });
    expect(none).toMatchObject({ ok: true });
    expect(none).not.toHaveProperty("value");
  });

  it("a throw fails the run and does not count as a test; a host call fails clearly", async () => {
    const f = await fileFixture();
    await saveFile(
      f,
      "lib/t.ts",
      `export function main() { throw new Error("boom"); }
       declare const legacyHost: { sys_lambda(x: unknown): Promise<unknown> };
       export async function nested() { return legacyHost.sys_lambda({ source: "lib/x.ts" }); }`,
    );
    expect(await testFile(f, "lib/t.ts", { input: null })).toMatchObject({
      ok: false,
      code: "hook_threw",
      message: expect.stringContaining("boom"),
    });
    expect(await testFile(f, "lib/t.ts", { export: "nested", input: null })).toMatchObject({
      ok: false,
      code: "hook_threw",
      message: expect.stringContaining("legacyHost"),
    });
    await expectProblem(
      await post(f, "lib/t.ts", "/deployments", { version: 1, channel: "active" }),
      409,
      "not_tested",
    );
  });

  it("a function the file does not have, or the wrong field for the kind, is 400", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/p.ts", LIB_SOURCE("!"));
    const missing = await expectProblem(
      await post(f, "lib/p.ts", "/test", { export: "VERSION", input: {} }),
      400,
      "invalid_request",
    );
    expect(missing.available).toEqual(["enrich", "main"]);
    await expectProblem(
      await post(f, "lib/p.ts", "/test", { hook: "tool", input: {} }),
      400,
      "invalid_request",
    );
    await saveFile(f, "plugins/t.ts", PLUGIN_SOURCE(0.3));
    await expectProblem(await post(f, "plugins/t.ts", "/test", { input: {} }), 400, "invalid_request");
    await expectProblem(
      await post(f, "plugins/t.ts", "/test", { hook: "tool", input: {} }),
      400,
      "invalid_request",
    );
    await expectProblem(
      await post(f, "plugins/t.ts", "/test", { hook: "chat.params" }),
      400,
      "invalid_request",
    );
    await expectProblem(await post(f, "lib/none.ts", "/test", { input: {} }), 409, "conflict");
  });
});
