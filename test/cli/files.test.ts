// Workspace files through the real `rayrun` executable against a local server:
// save → history → diff → test → deploy shadow, active → list → rollback → reset.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "./run-cli.ts";

const lib = (suffix: string) => `export function main(input: { text: string }) {
  return { text: input.text + "${suffix}" };
}
`;

describe("rayrun files", () => {
  it("takes a lib file from draft to active, rolls back and resets", () => {
    const dir = mkdtempSync(join(tmpdir(), "rayrun-files-"));
    const local = join(dir, "policy.ts");
    const ws = cli(["workspaces", "create", "cli-files", "--json"]).json<{ uid: string }>().uid;
    const env = { RAYRUN_WORKSPACE: ws };
    const run = (...args: string[]) => {
      const res = cli(args, env);
      expect(res.code, `${args.join(" ")}\n${res.stderr}`).toBe(0);
      return res;
    };
    const path = "lib/request-policy.ts";

    writeFileSync(local, lib(" (v1)"));
    expect(run("files", "save", path, "--file", local, "--note", "first").stdout).toContain(
      "Saved version 1",
    );
    writeFileSync(local, lib(" (v2)"));
    expect(run("files", "save", path, "--file", local).stdout).toContain("Saved version 2");
    expect(run("files", "history", path).stdout).toMatch(/\n2\s.*cli/);
    const diff = run("files", "diff", path, "2").stdout;
    expect(diff).toMatch(/^-.*\(v1\)/m);
    expect(diff).toMatch(/^\+.*\(v2\)/m);

    for (const version of ["1", "2"]) {
      const test = run("files", "test", path, "--input", '{"text":"hi"}', "--version", version, "--json");
      expect(test.json()).toMatchObject({ ok: true, export: "main", value: { text: `hi (v${version})` } });
    }
    const tested = run("files", "test", path, "--input", '{"text":"hi"}').stdout;
    expect(tested).toContain('ok: {"text":"hi (v2)"}');
    // Fuel in whole units with comma groups (the locale's dot would read as a fraction: 411.961).
    expect(tested).toMatch(/^took \d+ ms and [1-9]\d{0,2}(,\d{3})* fuel$/m);
    const shadow = run("files", "deploy", path, "1", "--channel", "shadow", "--json").json<{
      revision: { id: string; exports: string[] };
    }>();
    expect(shadow.revision.exports).toEqual(["main"]);
    const active = run("files", "deploy", path, "2", "--channel", "active", "--json").json<{
      revision: { id: string };
    }>();
    const listed = run("files", "list").stdout;
    expect(listed).toMatch(/^PATH\s+KIND\s+VERSION\s+ACTIVE\s+SHADOW/);
    expect(listed).toContain(`${path}  lib   2        ${active.revision.id}  ${shadow.revision.id}`);
    expect(run("files", "rollback", path, shadow.revision.id).stdout).toContain("Rolled active back");
    expect(run("files", "show", path, "--json").json()).toMatchObject({
      deployments: { active: { revisionId: shadow.revision.id } },
    });
    expect(run("files", "reset", path, "--yes").stdout).toContain("Reset");
    expect(run("files", "list", "--json").json()).toEqual({ items: [], nextCursor: null });
  });

  it("answers a hook's host calls from the --host-calls file, and refuses a file it cannot read as JSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "rayrun-files-"));
    const ws = cli(["workspaces", "create", "cli-files-mocks", "--json"]).json<{ uid: string }>().uid;
    const hook = join(dir, "hook.ts");
    writeFileSync(
      hook,
      `export async function main() {
  const first = await rayrun.model({ provider: "openai", request: { messages: [] } });
  return { first, second: await rayrun.lambda({ source: "lib/x.ts:f", args: {} }) };
}
`,
    );
    expect(cli(["files", "save", "lib/hook.ts", "--file", hook, "--workspace", ws]).code).toBe(0);
    const mocks = join(dir, "mocks.json");
    writeFileSync(
      mocks,
      JSON.stringify([
        { name: "model", result: "mocked model" },
        { name: "lambda", result: "mocked lambda" },
        { name: "model", result: "left over" },
      ]),
    );
    const test = (...extra: string[]) => cli(["files", "test", "lib/hook.ts", "--workspace", ws, ...extra]);

    const mocked = test("--host-calls", mocks);
    expect(mocked.code, mocked.stderr).toBe(0);
    expect(mocked.stdout).toContain('ok: {"first":"mocked model","second":"mocked lambda"}');
    expect(mocked.stderr).toContain("host calls: 2 mocks used, 1 unused, 0 calls without a matching mock");
    expect(test("--host-calls", mocks, "--json").json()).toMatchObject({
      ok: true,
      hostCalls: { used: 2, unused: 1, unmatched: 0 },
    });

    const unmocked = test();
    expect(unmocked.code).toBe(1);
    expect(unmocked.stdout).toContain("rayrun.model call 1 has no mock");

    const missing = test("--host-calls", join(dir, "absent.json"));
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("no such file");
    writeFileSync(join(dir, "bad.json"), "[{ name: model }]");
    const bad = test("--host-calls", join(dir, "bad.json"));
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain("is not JSON");
  });

  it("prints the problem code for a bad path and a failing test run", () => {
    const ws = cli(["workspaces", "create", "cli-files-bad", "--json"]).json<{ uid: string }>().uid;
    const bad = cli(["files", "show", "lib/../x.ts", "--workspace", ws]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("invalid_file_path");
    const dir = mkdtempSync(join(tmpdir(), "rayrun-files-"));
    writeFileSync(join(dir, "p.ts"), `export default { "chat.params": () => { throw new Error("nope"); } };`);
    expect(cli(["files", "save", "plugins/p.ts", "--file", join(dir, "p.ts"), "--workspace", ws]).code).toBe(
      0,
    );
    const failed = cli(["files", "test", "plugins/p.ts", "--hook", "chat.params", "--workspace", ws]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("failed: hook_threw");
  });
});
