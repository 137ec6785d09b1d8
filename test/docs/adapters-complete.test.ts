/// <reference types="vite/types/importMeta.d.ts" />
// docs/adapters.md stays complete: its tables list exactly the limits, the
// failure codes of an adapted tool call, the compiler's refusals and the
// actions the code has, read from the code itself. A new limit, code or action
// fails here until the tutorial documents it.
import { describe, expect, it } from "vitest";
import { APPROVAL_TTL_MS } from "../../shared/approvals";
import { LIMITS, type Limits } from "../../shared/limits";
import { OUTCOME_TEXT_CHARS, REASON_ID } from "../../shared/sandbox/call/outcome";
import { MAX_SCHEMA_DEPTH } from "../../workers/api/contract/schema-structure";
import { codeLiterals } from "./code-literals";
import { docText, section, SNIPPETS, tableCodes, tableRows } from "./snippets";

/** The limits that never bound an adapter, and why; every other limit must be in the tutorial's table. */
const NOT_FOR_ADAPTERS: Partial<Record<keyof Limits, string>> = {
  secretValueBytes: "secrets authorize upstream services; no hook sees them",
  mcpBatchToolCalls: "a bound of the MCP endpoint's batches, whatever hooks run",
  rateLimitTiersPerMinute: "request rates of the MCP and LLM endpoints, whatever hooks run",
  mcpRequestsPerMinute: "request rates of the MCP endpoint, whatever hooks run",
  llmRequestsPerMinute: "the LLM proxy",
  providerFirstByteMs: "the LLM proxy",
  providerIdleMs: "the LLM proxy",
  providerTimeoutMaxMs: "the LLM proxy",
  requestHookTimeoutMs: "request hooks",
  pluginHookTimeoutMs: "plugins",
  hostModelCallsPerInvocation: "request hooks only",
  structuralRetries: "request hooks only",
  loopPolicies: "request hooks only",
  loopPolicySources: "request hooks only",
  sandboxImageBytes: "a cache of compiled code in the sandbox: it changes speed, never an outcome",
  sandboxParkedBytes: "hooks that await host calls; an adapter has none",
  codeModeCallsPerExecution: "Code Mode's execute, whatever hooks run (docs/code-mode.md)",
  codeModeConcurrentCalls: "Code Mode's execute, whatever hooks run (docs/code-mode.md)",
  codeModeWallTimeMs: "Code Mode's execute, whatever hooks run (docs/code-mode.md)",
  codeModeCodeBytes: "Code Mode's execute, whatever hooks run (docs/code-mode.md)",
  codeModeOutputBytes: "Code Mode's execute, whatever hooks run (docs/code-mode.md)",
};

const KiB = 1024;
const MiB = 1024 * KiB;
const number = (n: number) => n.toLocaleString("en-US");

/** A limit's value as the tutorial's table writes it. */
function rendered(name: keyof Limits): string {
  const value: number | readonly number[] = LIMITS[name];
  if (typeof value !== "number") return value.map(number).join(", ");
  if (name.includes("Bytes")) {
    if (value % MiB === 0) return `${number(value / MiB)} MiB`;
    if (value % KiB === 0) return `${number(value / KiB)} KiB`;
    return `${number(value)} bytes`;
  }
  return name.endsWith("Ms") ? `${number(value)} ms` : number(value);
}

/** The tool-call path of an indexed tool; plugin tools (plugin-tool-*.ts) have no adapter. */
const TOOL_CALL_PATH = import.meta.glob<string>(
  ["../../workers/gateway/tool-call/*.ts", "!../../workers/gateway/tool-call/plugin-tool-*.ts"],
  { query: "?raw", import: "default", eager: true },
);
/** What that path calls to decide a refusal: access, approvals, the stage runner, the sandbox. */
const DECIDERS = import.meta.glob<string>(
  [
    "../../shared/access/index.ts",
    "../../shared/approvals/index.ts",
    "../../shared/adapter/steps.ts",
    "../../shared/sandbox/types.ts",
  ],
  { query: "?raw", import: "default", eager: true },
);
const DIAGNOSTICS = import.meta.glob<string>("../../workers/api/compiler/diagnostics.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const OUTCOMES = import.meta.glob<string>("../../shared/sandbox/call/outcome.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

const only = (files: Record<string, string>): string => {
  const texts = Object.values(files);
  expect(texts).toHaveLength(1);
  return texts[0] ?? "";
};

/** The string literals of `export type <name> = "a" | "b" | …;` in `source`. */
function unionLiterals(source: string, name: string): string[] {
  const union = new RegExp(`export type ${name} =([^;]*);`).exec(source)?.[1];
  if (union === undefined) throw new Error(`no union ${name}`);
  return [...union.matchAll(/"([a-z_]+)"/g)].map(([, literal = ""]) => literal);
}

/** Every code a refusal or run record of an adapted tool call can carry, as the code writes them. */
function failureCodes(): Set<string> {
  const codes = new Set<string>();
  for (const source of [...Object.values(TOOL_CALL_PATH), ...Object.values(DECIDERS)]) {
    for (const code of codeLiterals(source)) codes.add(code);
    for (const name of ["SandboxErrorCode", "StepFailureCode"]) {
      if (source.includes(`export type ${name} =`))
        for (const code of unionLiterals(source, name)) codes.add(code);
    }
  }
  return codes;
}

describe("docs/adapters.md is complete", () => {
  it("its limits table lists every limit that bounds an adapter, with the value in force", () => {
    const rows = tableRows(section("adapters", "## Limits"));
    const expected = (Object.keys(LIMITS) as (keyof Limits)[]).filter((name) => !(name in NOT_FOR_ADAPTERS));
    expect(rows.map(([name = ""]) => name).toSorted()).toEqual(expected.toSorted());
    for (const [name = "", value] of rows)
      expect({ name, value }).toEqual({ name, value: rendered(name as keyof Limits) });
  });

  it("its failure table lists every code the tool-call path can end an adapted call with", () => {
    const derived = failureCodes();
    // The scan finds codes of each kind it reads (a broken scan would make the check vacuous).
    for (const code of ["rejected", "failed", "hook_timeout", "upstream_timeout", "approval_expired"]) {
      expect(derived.has(code), code).toBe(true);
    }
    const documented = tableCodes(section("adapters", "## When a call fails"));
    expect(documented.toSorted()).toEqual([...derived].toSorted());
  });

  it("its compiler table lists every diagnostic an adapter can get", () => {
    const source = only(DIAGNOSTICS);
    const all = unionLiterals(source, "DiagnosticCode");
    // The union lists the workspace files' codes after this comment; adapters never get those.
    const fileCodes = unionLiterals(
      `export type Files = ${source.slice(source.indexOf("// Workspace files"))}`,
      "Files",
    );
    expect(fileCodes.length).toBeGreaterThan(0);
    const forAdapters = all.filter((code) => !fileCodes.includes(code));
    const documented = tableCodes(section("adapters", "## What the compiler refuses"));
    expect(documented.toSorted()).toEqual(forAdapters.toSorted());
  });

  it("every action the stages may return is in its tables and returned by an adapter snippet", () => {
    const source = only(OUTCOMES);
    const actions = (table: string) => {
      const body = new RegExp(`const ${table}: Record<string, Shape> = \\{([\\s\\S]*?)\\n\\};`).exec(
        source,
      )?.[1];
      if (body === undefined) throw new Error(`no ${table} table`);
      return [...body.matchAll(/^ {2}([a-z]+):/gm)].map(([, action = ""]) => action);
    };
    const adapterSnippets = [...SNIPPETS]
      .filter(([path]) => path.startsWith("adapters/") && path.endsWith(".ts"))
      .map(([, text]) => text);
    for (const [stage, table] of [
      ["before", "BEFORE"],
      ["after", "AFTER"],
    ] as const) {
      const found = actions(table);
      expect(found.length, table).toBeGreaterThan(1);
      const documented = tableCodes(section("adapters", `## What \`${stage}\` can return`));
      expect(documented.toSorted()).toEqual(found.toSorted());
      for (const action of found) {
        expect(
          adapterSnippets.some((text) => text.includes(`action: "${action}"`)),
          `an adapter snippet returns ${action}`,
        ).toBe(true);
      }
    }
  });

  it("states the bounds of outcomes, schemas and approvals the code enforces", () => {
    const text = docText("adapters").replace(/\s+/g, " ");
    expect(REASON_ID.test("a".repeat(64))).toBe(true);
    expect(REASON_ID.test("a".repeat(65))).toBe(false);
    expect(text).toContain("`a-z 0-9 _ . -`, at most 64 characters");
    expect(text).toContain(`at most ${number(OUTCOME_TEXT_CHARS)} characters`);
    expect(text).toContain(`nested at most ${MAX_SCHEMA_DEPTH} levels`);
    expect(APPROVAL_TTL_MS).toBe(60 * 60 * 1000);
    expect(text).toContain("An approval is valid for one hour");
  });
});
