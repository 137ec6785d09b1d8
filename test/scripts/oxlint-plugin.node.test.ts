// The rule on outcomes, as `npm run lint` applies it: .oxlintrc.json and the JS plugin it loads
// (scripts/oxlint-plugin.mjs), copied as they are into a folder of their own with a few files to
// lint, so the rule's files, selectors, messages and its one exemption are what is checked.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OXLINT = join(REPO, "node_modules", ".bin", "oxlint");
const RULE = "rayrun(no-restricted-syntax)";

interface Diagnostic {
  message: string;
  code: string;
  filename: string;
  labels: { span: { line: number } }[];
}

let dir = "";

/** Writes `files` (paths under the folder) and lints them with the repository's configuration. */
function lint(files: Record<string, string>): Diagnostic[] {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(OXLINT, ["-f", "json", ...Object.keys(files)], { cwd: dir, encoding: "utf8" });
  expect(run.error).toBeUndefined();
  const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  return diagnostics.filter((d) => d.code === RULE);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "rayrun-lint-test-"));
  mkdirSync(join(dir, "scripts"));
  mkdirSync(join(dir, "shared"));
  copyFileSync(join(REPO, ".oxlintrc.json"), join(dir, ".oxlintrc.json"));
  copyFileSync(join(REPO, "scripts", "oxlint-plugin.mjs"), join(dir, "scripts", "oxlint-plugin.mjs"));
  copyFileSync(join(REPO, "shared", "result.ts"), join(dir, "shared", "result.ts"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HAND_WRITTEN = `export type Parsed = { ok: true; value: number } | { ok: false; message: string };

export function parse(text: string): Parsed {
  if (!/^\\d+$/.test(text)) return { ok: false, message: "not a number" };
  return { ok: true, value: Number(text) };
}
`;

const WITH_RESULT = `import { err, ok, type Result } from "./result";

export type Parsed = Result<number, string>;

export function parse(text: string): Parsed {
  if (!/^\\d+$/.test(text)) return err("not a number");
  return ok(Number(text));
}
`;

const WITH_KIND = `export type Parsed = { kind: "number"; value: number } | { kind: "empty" } | { kind: "junk"; text: string };

export function parse(text: string): Parsed {
  if (text === "") return { kind: "empty" };
  return /^\\d+$/.test(text) ? { kind: "number", value: Number(text) } : { kind: "junk", text };
}
`;

describe("no hand-written { ok: false }", () => {
  it("reports the type and the value, each with what to use instead", () => {
    const found = lint({ "workers/gateway/parse.ts": HAND_WRITTEN });
    expect(found.map((d) => [d.filename, d.labels[0]?.span.line])).toEqual([
      ["workers/gateway/parse.ts", 1],
      ["workers/gateway/parse.ts", 4],
    ]);
    expect(found[0]?.message).toMatch(
      /^No hand-written `\{ ok: false … \}` type: use Result<T, E> \/ Err<E>/,
    );
    expect(found[1]?.message).toMatch(/^No hand-written `\{ ok: false … \}`: return err\(…\)/);
    for (const d of found) expect(d.message).toContain("`kind` union");
  });

  it("applies to every code folder", () => {
    const files = [
      "shared/x.ts",
      "durable-objects/x.ts",
      "workers/api/x.ts",
      "cli/x.ts",
      "console/src/x.tsx",
    ];
    const found = lint(Object.fromEntries(files.map((f) => [f, HAND_WRITTEN])));
    expect(new Set(found.map((d) => d.filename))).toEqual(new Set(files));
  });

  it("passes the same outcome as a Result built with err() and ok(), and a kind union", () => {
    expect(lint({ "shared/parse-result.ts": WITH_RESULT, "shared/parse-kind.ts": WITH_KIND })).toEqual([]);
  });

  it("exempts shared/result.ts, where Err is defined, and only it", () => {
    const result = readFileSync(join(REPO, "shared", "result.ts"), "utf8");
    expect(lint({ "shared/result.ts": result })).toEqual([]);
    expect(lint({ "shared/elsewhere.ts": result })).toHaveLength(2);
  });
});
