// docs/errors.md's catalogue is generated from the code (scripts/gen-errors-doc.ts):
// the file must be what the generator writes, every code in it says what it means
// and what to do, and every tool-level code the gateway writes as a plain string
// is in the catalogue, so a new code without a doc line fails here.
import { describe, expect, it } from "vitest";
import { PROBLEM_GUIDE, problemStatus, type ProblemCode } from "../../shared/http/problem";
import {
  APPROVAL_REFUSALS,
  BEGIN_MARKER,
  CODE_MODE_FAILURES,
  CODE_MODE_TOOL_ERRORS,
  END_MARKER,
  HOOK_FAILURES,
  REQUEST_HOOK_FAILURES,
  renderCatalogue,
  replaceGenerated,
  TOOL_REFUSALS,
} from "../../scripts/gen-errors-doc.ts";
import { repoFile, repoFiles } from "../workers/api/contract/typecheck";
import { codeLiterals as codesIn } from "./code-literals";

const DOC = repoFile("docs/errors.md");

/** Where the gateway writes tool-level codes (refusals, approvals, plugin tools). */
const GATEWAY_FOLDERS = ["workers/gateway/tool-call", "workers/gateway/plugins", "workers/gateway/code-mode"];
/** Codes written on those lines that never reach a client as a refusal. */
const NOT_REFUSALS = new Set([
  // A run record's code: an upstream tool error skipped `after`; the client gets the upstream's own result.
  "upstream_error",
]);

const catalogued = new Set([
  ...Object.keys(TOOL_REFUSALS),
  ...Object.keys(APPROVAL_REFUSALS),
  ...Object.keys(HOOK_FAILURES),
  ...Object.keys(CODE_MODE_FAILURES),
  ...Object.keys(CODE_MODE_TOOL_ERRORS),
]);
const gatewaySources = GATEWAY_FOLDERS.flatMap((folder) => repoFiles(folder, ".ts")).map((path) => ({
  path,
  source: repoFile(path),
}));

describe("docs/errors.md", () => {
  it("is what npm run docs:errors writes", () => {
    expect(DOC).toContain(BEGIN_MARKER);
    expect(DOC).toContain(END_MARKER);
    expect(replaceGenerated(DOC), "docs/errors.md is out of date: run npm run docs:errors").toBe(DOC);
  });

  it("lists every HTTP problem once, with its status", () => {
    const section = DOC.slice(DOC.indexOf("## HTTP problems"), DOC.indexOf("## Tool call refusals"));
    for (const code of Object.keys(PROBLEM_GUIDE) as ProblemCode[]) {
      const rows = section.split("\n").filter((line) => line.startsWith(`| \`${code}\` `));
      expect(rows, code).toHaveLength(1);
      expect(rows[0]?.split("|")[2]?.trim(), code).toBe(String(problemStatus(code)));
    }
  });

  it("keeps the hand-written sections around the generated part", () => {
    const generated = renderCatalogue();
    expect(DOC.indexOf(generated)).toBeGreaterThan(0);
    expect(DOC.slice(DOC.indexOf(generated) + generated.length)).toContain("## The gateway");
  });

  it("refuses a file without the markers instead of dropping its text", () => {
    expect(() => replaceGenerated("# Errors\n\nno markers\n")).toThrow(/needs the lines/);
  });
});

describe("the catalogue", () => {
  const tables = { PROBLEM_GUIDE, TOOL_REFUSALS, APPROVAL_REFUSALS, HOOK_FAILURES, REQUEST_HOOK_FAILURES };

  it.each(Object.entries(tables))("%s: every code says what it means and what to do", (_, table) => {
    for (const [code, guide] of Object.entries(table)) {
      expect(guide.means.length, code).toBeGreaterThan(10);
      expect(guide.means, `${code}: a meaning is a phrase, not a sentence`).not.toMatch(/\.$/);
      expect(guide.action, `${code}: an action is one sentence`).toMatch(/^[A-Z`].{3,}\.$/);
    }
  });

  it("finds codes on the lines that write them", () => {
    const source = [
      'return refuse(call, { code: "brand_new_code", message });',
      'const code = kind === "timeout" ? "upstream_timeout" : "upstream_unavailable";',
      '// code: "commented_out"',
      '| { kind: "rpc_error"; code: number; message: string }',
      'const other = "not_a_code";',
    ].join("\n");
    expect(codesIn(source)).toEqual(["brand_new_code", "upstream_timeout", "upstream_unavailable"]);
  });

  it("documents every tool-level code the gateway writes", () => {
    const missing = gatewaySources.flatMap(({ path, source }) =>
      codesIn(source)
        .filter((code) => !catalogued.has(code) && !NOT_REFUSALS.has(code))
        .map((code) => `${code} (${path})`),
    );
    expect(missing, "add these codes to scripts/gen-errors-doc.ts").toEqual([]);
  });

  it("documents no tool-level code the code does not have", () => {
    // Codes from typed unions in shared/ (access, schema checks) reach the gateway as values.
    const sources = [
      ...gatewaySources.map(({ source }) => source),
      repoFile("shared/access/index.ts"),
      repoFile("shared/adapter/steps.ts"),
      repoFile("shared/mcp/tool-results.ts"),
    ].join("\n");
    expect(Object.keys(TOOL_REFUSALS).filter((code) => !sources.includes(`"${code}"`))).toEqual([]);
  });
});
