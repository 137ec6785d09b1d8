// The whole lifecycle through the real `rayrun` executable against a local server:
// workspace → key → demo upstream → save → diff → test → deploy shadow, active → rollback → reset.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { cli } from "./run-cli.ts";

const adapter = (suffix: string) => `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: { text: String(a.text) + "${suffix}" } }),
});
`;

/** A new workspace with the demo upstream registered and indexed, through the CLI with the bootstrap key. */
function demoWorkspace(name: string) {
  const ws = cli(["workspaces", "create", name, "--json"]).json<{ uid: string }>().uid;
  const svc = cli([
    "services",
    "add",
    "demo",
    `${inject("upstreamUrl")}/${ws}/mcp`,
    "--workspace",
    ws,
    "--json",
  ]).json<{
    uid: string;
  }>().uid;
  const refreshed = cli(["services", "refresh", svc, "--workspace", ws]).stdout;
  return { ws, refreshed };
}

describe("rayrun hooks", () => {
  it("takes an adapter from draft to active, rolls back and resets", () => {
    const dir = mkdtempSync(join(tmpdir(), "rayrun-hooks-"));
    const file = join(dir, "adapter.ts");
    const { ws, refreshed } = demoWorkspace("cli-hooks");
    const key = cli([
      "keys",
      "create",
      "--workspace",
      ws,
      "--scopes",
      "hooks:read,hooks:write",
      "--actor",
      "dev",
      "--json",
    ]).json<{ key: string }>().key;
    const env = { RAYRUN_WORKSPACE: ws, RAYRUN_KEY: key };
    const run = (...args: string[]) => {
      const res = cli(args, env);
      expect(res.code, `${args.join(" ")}\n${res.stderr}`).toBe(0);
      return res;
    };
    expect(refreshed).toContain("added 3");
    expect(run("tools", "list").stdout).toMatch(/echo/);

    writeFileSync(file, adapter(" (v1)"));
    expect(run("hooks", "save", "--tool", "echo", "--file", file, "--note", "first").stdout).toContain(
      "Saved version 1",
    );
    writeFileSync(file, adapter(" (v2)"));
    expect(run("hooks", "save", "--tool", "echo", "--file", file).stdout).toContain("Saved version 2");
    expect(run("hooks", "save", "--tool", "echo", "--file", file).stdout).toContain("No change");

    const history = run("hooks", "history", "--tool", "echo").stdout;
    expect(history).toMatch(/^VERSION\s+TIME\s+ACTOR\s+CHANNEL\s+NOTE/);
    expect(history).toMatch(/\n2\s.*dev\s+cli/);
    const diff = run("hooks", "diff", "2", "--tool", "echo").stdout;
    expect(diff).toContain("--- v1/source.ts");
    expect(diff).toMatch(/^-.*\(v1\)/m);
    expect(diff).toMatch(/^\+.*\(v2\)/m);

    for (const version of ["1", "2"]) {
      const test = run(
        "hooks",
        "test",
        "--tool",
        "echo",
        "--stage",
        "before",
        "--arguments",
        '{"text":"hi"}',
        "--version",
        version,
        "--json",
      );
      expect(test.json()).toMatchObject({ ok: true, outcome: { arguments: { text: `hi (v${version})` } } });
    }
    const shadow = run("hooks", "deploy", "1", "--tool", "echo", "--channel", "shadow", "--json").json<{
      revision: { id: string };
    }>();
    const active = run("hooks", "deploy", "2", "--tool", "echo", "--channel", "active", "--json").json<{
      revision: { id: string };
    }>();
    expect(run("hooks", "show", "--tool", "echo", "--json").json()).toMatchObject({
      deployments: { active: { revisionId: active.revision.id }, shadow: { revisionId: shadow.revision.id } },
    });
    expect(run("hooks", "rollback", shadow.revision.id, "--tool", "echo").stdout).toContain(
      "Rolled active back",
    );
    expect(run("hooks", "show", "--tool", "echo", "--json").json()).toMatchObject({
      deployments: { active: { revisionId: shadow.revision.id } },
    });

    expect(cli(["hooks", "reset", "--tool", "echo"], env).code).toBe(2);
    expect(run("hooks", "reset", "--tool", "echo", "--yes").stdout).toContain("Reset");
    expect(run("hooks", "show", "--tool", "echo", "--json").json()).toMatchObject({
      draft: { version: 0 },
      deployments: { active: null, shadow: null },
    });
  });

  it("shows the problem code and exits 1 when a deploy is refused", () => {
    const { ws } = demoWorkspace("cli-refused");
    const dir = mkdtempSync(join(tmpdir(), "rayrun-hooks-"));
    writeFileSync(join(dir, "a.ts"), adapter("!"));
    cli(["hooks", "save", "--tool", "echo", "--file", join(dir, "a.ts"), "--workspace", ws]);
    const res = cli(["hooks", "deploy", "1", "--tool", "echo", "--channel", "active", "--workspace", ws]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("not_tested");
  });
});
