// `pre_llm_hook` validation and the helpers the LLM path uses.
import { describe, expect, it } from "vitest";
import {
  effectiveHookTimeoutMs,
  hookAppliesToLoop,
  parseHookSource,
  PreLlmHookSchema,
  type PreLlmHookConfig,
} from "../../../shared/config/pre-llm-hook";
import { DEFAULT_CONFIG, WorkspaceConfigDocument } from "../../../shared/config/schema";
import { FILE_PATH_MAX_CHARS } from "../../../shared/files/paths";
import { LIMITS } from "../../../shared/limits";

/** Paths (dot-joined) of the issues a hook document raises; [] when it is valid. */
function issues(hook: unknown): string[] {
  const parsed = PreLlmHookSchema.safeParse(hook);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
}

const valid = (hook: unknown) => expect(issues(hook)).toEqual([]);
const source = (value: string) => issues({ source: value, scope: "all" });

/** A `lib/…ts` path of exactly `chars` characters. */
const pathOf = (chars: number) => `lib/${"a".repeat(chars - "lib/".length - ".ts".length)}.ts`;

describe("pre_llm_hook.source", () => {
  it("is a .js or .ts file under lib/, optionally followed by :functionName", () => {
    valid({ source: "lib/request-policy.ts:transform", scope: "all" });
    valid({ source: "lib/request-policy.ts", scope: "all" });
    valid({ source: "lib/policies/v2/request_policy.js:$run_2", scope: "all" });
    expect(source("lib/request-policy.mjs")).toEqual(["source"]);
    expect(source("lib/request-policy")).toEqual(["source"]);
    expect(source("plugins/redact.ts")).toEqual(["source"]);
    expect(source("request-policy.ts")).toEqual(["source"]);
    expect(source("lib/.ts")).toEqual(["source"]);
    expect(source("lib/.hidden.ts")).toEqual(["source"]);
    expect(source("lib/types.d.ts")).toEqual(["source"]);
    expect(source("plugins/redact.ts:tool")).toEqual(["source"]);
    expect(source("")).toEqual(["source"]);
  });

  it("an omitted function name means main", () => {
    expect(parseHookSource("lib/request-policy.ts")).toEqual({
      path: "lib/request-policy.ts",
      exportName: "main",
    });
    expect(parseHookSource("lib/request-policy.ts:transform")).toEqual({
      path: "lib/request-policy.ts",
      exportName: "transform",
    });
  });

  it("the function name is a JavaScript identifier", () => {
    for (const name of ["", "1st", "trans-form", "a.b", "a:b", "f ", "ünicode"]) {
      expect(source(`lib/x.ts:${name}`), name).toEqual(["source"]);
    }
    valid({ source: "lib/x.ts:_private$", scope: "all" });
  });

  it("paths are relative: no leading /", () => {
    expect(source("/lib/x.ts")).toEqual(["source"]);
  });

  it("paths have no .. or . segments", () => {
    expect(source("lib/../x.ts")).toEqual(["source"]);
    expect(source("lib/a/../../x.ts")).toEqual(["source"]);
    expect(source("lib/./x.ts")).toEqual(["source"]);
  });

  it("paths have no empty segments", () => {
    expect(source("lib//x.ts")).toEqual(["source"]);
    expect(source("lib/x.ts/")).toEqual(["source"]);
  });

  it("path segments use letters, digits, _, . and - only", () => {
    for (const path of ["lib/a b.ts", "lib\\x.ts", "lib/a\\..\\x.ts", "lib/%2e%2e/x.ts", "lib/é.ts"]) {
      expect(source(path), path).toEqual(["source"]);
    }
  });

  it(`paths are at most ${FILE_PATH_MAX_CHARS} characters (the function name is not counted)`, () => {
    expect(FILE_PATH_MAX_CHARS).toBe(200);
    expect(pathOf(FILE_PATH_MAX_CHARS)).toHaveLength(FILE_PATH_MAX_CHARS);
    valid({ source: `${pathOf(FILE_PATH_MAX_CHARS)}:transform`, scope: "all" });
    expect(source(pathOf(FILE_PATH_MAX_CHARS + 1))).toEqual(["source"]);
  });

  it("parseHookSource throws on a source the schema refuses", () => {
    expect(() => parseHookSource("lib/../x.ts")).toThrow(/pre_llm_hook source/);
    expect(() => parseHookSource("lib/x.ts:not-an-identifier")).toThrow(/identifier/);
  });
});

describe("pre_llm_hook.scope", () => {
  it("is all, main or loops", () => {
    valid({ source: "lib/x.ts", scope: "all" });
    valid({ source: "lib/x.ts", scope: "main" });
    valid({ source: "lib/x.ts", scope: "loops", loops: ["researcher"] });
    expect(issues({ source: "lib/x.ts", scope: "inner" })).toEqual(["scope"]);
    expect(issues({ source: "lib/x.ts" })).toEqual(["scope"]);
  });

  it("source and scope are required; unknown keys are refused", () => {
    expect(issues({ scope: "all" })).toEqual(["source"]);
    expect(issues({ source: "lib/x.ts", scope: "all", loop: ["a"] })).toEqual([""]);
  });
});

describe("pre_llm_hook.loops", () => {
  it('is required with scope "loops"', () => {
    expect(issues({ source: "lib/x.ts", scope: "loops" })).toEqual(["loops"]);
    expect(issues({ source: "lib/x.ts", scope: "loops", include_main: true })).toEqual(["loops"]);
  });

  it('is only allowed with scope "loops"', () => {
    expect(issues({ source: "lib/x.ts", scope: "all", loops: ["researcher"] })).toEqual(["loops"]);
    expect(issues({ source: "lib/x.ts", scope: "main", loops: ["researcher"] })).toEqual(["loops"]);
  });

  it("is not empty", () => {
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: [] })).toEqual(["loops"]);
  });

  it("has no duplicates", () => {
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: ["a", "b", "a"] })).toEqual(["loops.2"]);
  });

  it("never contains main", () => {
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: ["researcher", "main"] })).toEqual([
      "loops.1",
    ]);
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: ["main"], include_main: true })).toEqual([
      "loops.0",
    ]);
  });

  it("names are 1-64 letters, digits, _, . or -", () => {
    valid({ source: "lib/x.ts", scope: "loops", loops: ["researcher", "code_review-2.v1", "a".repeat(64)] });
    for (const name of ["", "a".repeat(65), "has space", "ünicode", "a/b"]) {
      expect(issues({ source: "lib/x.ts", scope: "loops", loops: [name] }), name).toEqual(["loops.0"]);
    }
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: [1] })).toEqual(["loops.0"]);
  });
});

describe("pre_llm_hook.include_main", () => {
  it('is a boolean, valid only with scope "loops"', () => {
    valid({ source: "lib/x.ts", scope: "loops", loops: ["a"], include_main: true });
    valid({ source: "lib/x.ts", scope: "loops", loops: ["a"], include_main: false });
    expect(issues({ source: "lib/x.ts", scope: "all", include_main: true })).toEqual(["include_main"]);
    expect(issues({ source: "lib/x.ts", scope: "main", include_main: false })).toEqual(["include_main"]);
    expect(issues({ source: "lib/x.ts", scope: "loops", loops: ["a"], include_main: "yes" })).toEqual([
      "include_main",
    ]);
  });
});

describe("pre_llm_hook.timeout_ms", () => {
  it("is an optional positive integer", () => {
    valid({ source: "lib/x.ts", scope: "all", timeout_ms: 1 });
    for (const timeout of [0, -1, 1.5, "5000", null]) {
      expect(issues({ source: "lib/x.ts", scope: "all", timeout_ms: timeout }), String(timeout)).toEqual([
        "timeout_ms",
      ]);
    }
  });

  it("is stored as given even when over the cap", () => {
    const hook = { source: "lib/x.ts", scope: "all", timeout_ms: 10_000_000 };
    const parsed = WorkspaceConfigDocument.parse({
      pre_llm_hook: hook,
      limits: { execution_timeout_ms: 100 },
    });
    expect(parsed.pre_llm_hook).toEqual(hook);
  });
});

describe("pre_llm_hook is stored as given", () => {
  it("keeps exactly the given keys; all is never normalized into a list", () => {
    for (const hook of [
      { source: "lib/x.ts", scope: "all" },
      { source: "lib/x.ts:transform", scope: "main", timeout_ms: 200 },
      { source: "lib/x.ts", scope: "loops", loops: ["reviewer", "researcher"], include_main: false },
    ]) {
      const parsed = WorkspaceConfigDocument.parse({ pre_llm_hook: hook });
      expect(parsed.pre_llm_hook).toStrictEqual(hook);
      expect(Object.keys(parsed.pre_llm_hook ?? {})).toEqual(Object.keys(hook));
    }
  });

  it("errors name the field from the document root", () => {
    const parsed = WorkspaceConfigDocument.safeParse({
      pre_llm_hook: { source: "lib/x.ts", scope: "loops" },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([["pre_llm_hook", "loops"]]);
  });
});

const hook = (rest: Omit<PreLlmHookConfig, "source">): PreLlmHookConfig => ({
  source: "lib/x.ts",
  ...rest,
});

describe("hookAppliesToLoop", () => {
  it("all covers main and any loop name, including ones not declared anywhere", () => {
    for (const loop of ["main", "researcher", "declared-later"]) {
      expect(hookAppliesToLoop(hook({ scope: "all" }), loop)).toBe(true);
    }
  });

  it("main covers only main", () => {
    expect(hookAppliesToLoop(hook({ scope: "main" }), "main")).toBe(true);
    expect(hookAppliesToLoop(hook({ scope: "main" }), "researcher")).toBe(false);
  });

  it("loops covers the named loops, and main only with include_main", () => {
    const named = hook({ scope: "loops", loops: ["researcher", "reviewer"] });
    expect(hookAppliesToLoop(named, "researcher")).toBe(true);
    expect(hookAppliesToLoop(named, "reviewer")).toBe(true);
    expect(hookAppliesToLoop(named, "writer")).toBe(false);
    expect(hookAppliesToLoop(named, "main")).toBe(false);
    expect(hookAppliesToLoop({ ...named, include_main: false }, "main")).toBe(false);
    expect(hookAppliesToLoop({ ...named, include_main: true }, "main")).toBe(true);
    expect(hookAppliesToLoop({ ...named, include_main: true }, "writer")).toBe(false);
  });

  it("loop names match exactly (case-sensitive)", () => {
    expect(hookAppliesToLoop(hook({ scope: "loops", loops: ["researcher"] }), "Researcher")).toBe(false);
    expect(hookAppliesToLoop(hook({ scope: "main" }), "Main")).toBe(false);
  });
});

const withLimit = (ms: number) => ({ ...DEFAULT_CONFIG, limits: { execution_timeout_ms: ms } });

describe("effectiveHookTimeoutMs", () => {
  const all: PreLlmHookConfig = { source: "lib/x.ts", scope: "all" };

  it(`defaults to LIMITS.requestHookTimeoutMs (${LIMITS.requestHookTimeoutMs} ms)`, () => {
    expect(effectiveHookTimeoutMs(all, DEFAULT_CONFIG)).toBe(LIMITS.requestHookTimeoutMs);
    expect(effectiveHookTimeoutMs(all, withLimit(60_000))).toBe(LIMITS.requestHookTimeoutMs);
  });

  it("timeout_ms is capped by limits.execution_timeout_ms: at the cap passes, one over is capped", () => {
    expect(effectiveHookTimeoutMs({ ...all, timeout_ms: 1500 }, withLimit(1500))).toBe(1500);
    expect(effectiveHookTimeoutMs({ ...all, timeout_ms: 1501 }, withLimit(1500))).toBe(1500);
    expect(effectiveHookTimeoutMs({ ...all, timeout_ms: 1499 }, withLimit(1500))).toBe(1499);
    expect(effectiveHookTimeoutMs({ ...all, timeout_ms: 20_000 }, withLimit(30_000))).toBe(20_000);
  });

  it("the default is capped too", () => {
    expect(effectiveHookTimeoutMs(all, withLimit(200))).toBe(200);
  });

  it("without limits.execution_timeout_ms the cap is the default hook timeout", () => {
    const over = { ...all, timeout_ms: LIMITS.requestHookTimeoutMs + 1 };
    expect(effectiveHookTimeoutMs(over, DEFAULT_CONFIG)).toBe(LIMITS.requestHookTimeoutMs);
    expect(effectiveHookTimeoutMs({ ...all, timeout_ms: 250 }, { ...DEFAULT_CONFIG, limits: {} })).toBe(250);
  });
});
