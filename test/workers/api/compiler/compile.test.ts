// One rule per test, named after it. All compiler tests live in this file and
// generated-types.test.ts, because each test file pays for loading esbuild-wasm.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../shared/canonical-json";
import { utf8Bytes } from "../../../../shared/json";
import { LIMITS } from "../../../../shared/limits";
import { compileToolAdapter, type Diagnostic } from "../../../../workers/api/compiler";
import { adapter, BEFORE, MINIMAL, SEED_ADAPTER, SEED_PUBLIC_CONTRACT, VERSION } from "./fixtures";

async function compiled(source: string, config?: unknown) {
  const result = await compileToolAdapter({ source, config });
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

async function diagnostics(source: string, config?: unknown): Promise<Diagnostic[]> {
  const result = await compileToolAdapter({ source, config });
  if (result.ok) throw new Error("expected diagnostics, the source compiled");
  return result.error;
}

/** The one diagnostic a source produces, without its message. */
async function only(source: string, config?: unknown) {
  const found = await diagnostics(source, config);
  return found.map(({ code, line, column }) => ({ code, line, column }));
}

describe("compileToolAdapter", () => {
  it("compiles the example adapter and extracts its publicContract", async () => {
    const out = await compiled(SEED_ADAPTER);
    expect(out.publicContract).toEqual(SEED_PUBLIC_CONTRACT);
    expect(out.stages).toEqual(["before", "after"]);
    expect(out.config).toEqual({});
    expect(out.code).toMatch(/^var __rayrunModule = /);
    expect(out.compiledBytes).toBe(utf8Bytes(out.code));
    expect(out.hash).toBe(await sha256Hex(out.code));
    expect(out.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps the config it was given", async () => {
    expect((await compiled(SEED_ADAPTER, { prefix: "v2 " })).config).toEqual({ prefix: "v2 " });
  });

  it("treats type errors as no obstacle", async () => {
    const out = await compiled(adapter(`${VERSION}\n${BEFORE}`, `const n: number = "not a number";\n`));
    expect(out.stages).toEqual(["before"]);
  });

  it("lowers object spread for the sandbox's fuel accounting", async () => {
    const out = await compiled(
      adapter(
        `${VERSION}\n  before({ arguments: a }) { return { action: "continue", arguments: { ...a, x: 1 } }; },`,
      ),
    );
    expect(out.code).not.toContain("...a");
  });

  it("allows type-only imports, which leave nothing to import", async () => {
    expect((await compiled(`import type { Thing } from "somewhere";\n${MINIMAL}`)).stages).toEqual([
      "before",
    ]);
  });
});

describe("syntax_error", () => {
  it("reports the line and the 1-based UTF-16 column", async () => {
    // "é" is two bytes in UTF-8 but one column.
    expect(await only(`const é = "ü";\nconst x = ;\n${MINIMAL}`)).toEqual([
      { code: "syntax_error", line: 2, column: 11 },
    ]);
    expect(await only(`const é = 1; let x = ;\n${MINIMAL}`)).toEqual([
      { code: "syntax_error", line: 1, column: 22 },
    ]);
  });
});

describe("import_not_allowed", () => {
  const cases: [string, string, number, number][] = [
    ["a static import", `import { z } from "zod";\n${MINIMAL}`, 1, 19],
    ["an import whose binding is unused", `\nimport x from "y";\n${MINIMAL}`, 2, 15],
    ["a side-effect import", `import "polyfill";\n${MINIMAL}`, 1, 8],
    ["export * from", `${MINIMAL}export * from "other";\n`, 5, 15],
    ["export { … } from", `${MINIMAL}export { a } from "other";\n`, 5, 19],
    ["a dynamic import with a literal", adapter(`${VERSION}\n${BEFORE}`, `const m = import("x");\n`), 1, 18],
    [
      "a dynamic import with a non-literal",
      adapter(`${VERSION}\n${BEFORE}`, `const p = "x";\nconst m = import(p);\n`),
      2,
      11,
    ],
    ["require with a literal", adapter(`${VERSION}\n${BEFORE}`, `const m = require("fs");\n`), 1, 19],
    [
      "require with a non-literal",
      adapter(`${VERSION}\n${BEFORE}`, `const p = "fs";\nconst m = require(p);\n`),
      2,
      11,
    ],
  ];
  for (const [name, source, line, column] of cases) {
    it(`rejects ${name}`, async () => {
      expect(await only(source)).toEqual([{ code: "import_not_allowed", line, column }]);
    });
  }
});

describe("export_not_allowed", () => {
  it("rejects a named export beside the default, pointing at it", async () => {
    const found = await diagnostics(`const a = 1;\n  export const helper = 1;\n${MINIMAL}`);
    expect(found).toEqual([expect.objectContaining({ code: "export_not_allowed", line: 2, column: 1 })]);
    expect(found[0]?.message).toContain('"helper"');
  });
});

describe("invalid_module", () => {
  it("rejects a module without a default export", async () => {
    expect(await only(`const a = defineToolAdapter({ ${VERSION} ${BEFORE} });\n`)).toEqual([
      { code: "invalid_module", line: 1, column: 1 },
    ]);
  });

  it("rejects a default export that is not a defineToolAdapter result", async () => {
    const found = await diagnostics(`export default { apiVersion: "rayrun.hooks/v1", before() {} };\n`);
    expect(found.map((d) => d.code)).toEqual(["invalid_module"]);
  });
});

describe("unsupported_syntax", () => {
  it("rejects top-level await", async () => {
    expect(await only(`await Promise.resolve();\n${MINIMAL}`)).toEqual([
      { code: "unsupported_syntax", line: 1, column: 1 },
    ]);
  });

  it("rejects BigInt literals, which the sandbox does not provide", async () => {
    expect(await only(`const n = 10n;\n${MINIMAL}`)).toEqual([
      { code: "unsupported_syntax", line: 1, column: 11 },
    ]);
  });
});

describe("invalid_api_version", () => {
  it("rejects a wrong apiVersion at its position", async () => {
    expect(await only(adapter(`  apiVersion: "rayrun.hooks/v2",\n${BEFORE}`))).toEqual([
      {
        code: "invalid_api_version",
        line: 2,
        column: 3,
      },
    ]);
  });

  it("rejects a missing apiVersion at the definition", async () => {
    expect(await only(adapter(BEFORE))).toEqual([{ code: "invalid_api_version", line: 1, column: 16 }]);
  });
});

describe("missing_stage", () => {
  it("rejects an adapter with neither before nor after", async () => {
    expect(await only(adapter(VERSION))).toEqual([{ code: "missing_stage", line: 1, column: 16 }]);
  });

  it("accepts after alone", async () => {
    const out = await compiled(
      adapter(`${VERSION}\n  after({ result }) { return { action: "return", result }; },`),
    );
    expect(out.stages).toEqual(["after"]);
  });
});

describe("invalid_public_contract", () => {
  it("rejects an inputSchema that is not an object schema", async () => {
    const source = adapter(`${VERSION}\n  publicContract: { inputSchema: { type: "string" } },\n${BEFORE}`);
    expect(await only(source)).toEqual([{ code: "invalid_public_contract", line: 3, column: 3 }]);
  });

  it("rejects unknown members", async () => {
    const source = adapter(`${VERSION}\n  publicContract: { description: "d", name: "x" },\n${BEFORE}`);
    const found = await diagnostics(source);
    expect(found.map((d) => d.code)).toEqual(["invalid_public_contract"]);
    expect(found[0]?.message).toContain("/name");
  });
});

describe("regex_not_allowed", () => {
  it("rejects pattern nested deep in items and anyOf", async () => {
    const schema = `{ type: "object", properties: { tags: { type: "array", items: { anyOf: [{ type: "string", pattern: "^(a+)+$" }] } } } }`;
    const found = await diagnostics(
      adapter(`${VERSION}\n  publicContract: { inputSchema: ${schema} },\n${BEFORE}`),
    );
    expect(found).toEqual([expect.objectContaining({ code: "regex_not_allowed", line: 3, column: 3 })]);
    expect(found[0]?.message).toContain("/inputSchema/properties/tags/items/anyOf/0/pattern");
  });

  it("accepts a property named pattern", async () => {
    const schema = `{ type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] }`;
    const out = await compiled(
      adapter(`${VERSION}\n  publicContract: { inputSchema: ${schema} },\n${BEFORE}`),
    );
    expect(out.publicContract?.inputSchema?.properties).toEqual({ pattern: { type: "string" } });
  });
});

describe("evaluation_failed", () => {
  it("reports a top-level throw with the sandbox code", async () => {
    const found = await diagnostics(`throw new Error("boom");\n${MINIMAL}`);
    expect(found.map((d) => d.code)).toEqual(["evaluation_failed"]);
    expect(found[0]?.message).toContain("hook_threw");
  });

  it("reports an endless top level as a timeout", async () => {
    const found = await diagnostics(`while (true) {}\n${MINIMAL}`);
    expect(found.map((d) => d.code)).toEqual(["evaluation_failed"]);
    expect(found[0]?.message).toContain("hook_timeout");
  });
});

/** A valid adapter padded with a comment to exactly `bytes` UTF-8 bytes. */
const padded = (bytes: number) => {
  const base = `${MINIMAL}//`;
  return base + "x".repeat(bytes - utf8Bytes(base));
};

describe("source_too_large", () => {
  it("accepts source of exactly LIMITS.sourceBytes", async () => {
    const source = padded(LIMITS.sourceBytes);
    expect(utf8Bytes(source)).toBe(LIMITS.sourceBytes);
    await compiled(source);
  });

  it("rejects one byte more", async () => {
    expect(await only(padded(LIMITS.sourceBytes + 1))).toEqual([
      { code: "source_too_large", line: 1, column: 1 },
    ]);
  });

  it("counts UTF-8 bytes, not characters", async () => {
    const base = `${MINIMAL}//`;
    // Three-byte characters: fewer characters than the limit, more bytes.
    const source = base + "中".repeat(Math.ceil((LIMITS.sourceBytes - utf8Bytes(base) + 1) / 3));
    expect(source.length).toBeLessThan(LIMITS.sourceBytes);
    expect((await only(source)).map((d) => d.code)).toEqual(["source_too_large"]);
  });
});

// esbuild escapes non-ASCII output ("中" → "\u4E2D"), so 3 source bytes become 6:
// the only way to reach the compiled limit from a source within its own limit.
const bigStringAdapter = (wide: number, narrow: number) =>
  adapter(
    `${VERSION}\n  before() { return { action: "continue", arguments: { big } }; },`,
    `const big = "${"中".repeat(wide)}${"a".repeat(narrow)}";\n`,
  );

describe("compiled_too_large", () => {
  it("accepts compiled code of exactly LIMITS.compiledBytes and rejects one byte more", async () => {
    const probe = await compiled(bigStringAdapter(25_000, 0));
    const narrow = LIMITS.compiledBytes - probe.compiledBytes;
    expect(narrow).toBeGreaterThan(0);
    const atLimit = await compiled(bigStringAdapter(25_000, narrow));
    expect(atLimit.compiledBytes).toBe(LIMITS.compiledBytes);
    expect(await only(bigStringAdapter(25_000, narrow + 1))).toEqual([
      { code: "compiled_too_large", line: 1, column: 1 },
    ]);
  });
});

/** A config whose JSON text is exactly `bytes` UTF-8 bytes. */
const configOf = (bytes: number) => ({ p: "x".repeat(bytes - utf8Bytes(JSON.stringify({ p: "" }))) });

describe("config", () => {
  it("accepts config of exactly LIMITS.configBytes", async () => {
    const config = configOf(LIMITS.configBytes);
    expect(utf8Bytes(JSON.stringify(config))).toBe(LIMITS.configBytes);
    expect((await compiled(MINIMAL, config)).config).toEqual(config);
  });

  it("config_too_large: rejects one byte more", async () => {
    expect(await only(MINIMAL, configOf(LIMITS.configBytes + 1))).toEqual([
      {
        code: "config_too_large",
        line: 1,
        column: 1,
      },
    ]);
  });

  it.each([[[]], ["x"], [1], [null], [{ n: Number.NaN }], [{ d: new Date(0) }]])(
    "config_not_object: rejects %j",
    async (config) => {
      expect((await only(MINIMAL, config)).map((d) => d.code)).toEqual(["config_not_object"]);
    },
  );

  it("reports config problems together with the source's", async () => {
    const found = await diagnostics(`const x = ;\n${MINIMAL}`, []);
    expect(found.map((d) => d.code)).toEqual(["config_not_object", "syntax_error"]);
  });
});
