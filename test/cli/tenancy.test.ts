import { describe, expect, inject, it } from "vitest";
import { cli } from "./run-cli.ts";

describe("rayrun (tenancy)", () => {
  it("creates a workspace and a key, and lists keys as a table or JSON", () => {
    const ws = cli(["workspaces", "create", "cli-test", "--json"]);
    expect(ws.code, ws.stderr).toBe(0);
    const { uid } = ws.json<{ uid: string }>();
    const key = cli([
      "keys",
      "create",
      "--workspace",
      uid,
      "--scopes",
      "hooks:read,hooks:write",
      "--actor",
      "ci",
      "--json",
    ]);
    expect(key.code, key.stderr).toBe(0);
    expect(key.json<{ key: string }>().key).toMatch(/^rr_/);
    const table = cli(["keys", "list", "--workspace", uid]);
    expect(table.stdout).toMatch(/^ID\s+ACTOR\s+SCOPES/);
    expect(table.stdout).toContain("hooks:read,hooks:write");
  });

  it("exits non-zero and prints the problem's code on API errors", () => {
    const res = cli(["workspaces", "show", "--workspace", "ws_missing"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("not_found");
  });

  it("exits 2 on usage errors", () => {
    expect(cli(["hooks", "history"]).code).toBe(2);
    expect(cli(["nonsense"]).code).toBe(2);
  });

  it("a wrong key is refused with unauthorized", () => {
    const res = cli(["workspaces", "create", "x"], { RAYRUN_KEY: "nope" });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("unauthorized");
  });

  it("login checks the server and saves url and key; use selects a workspace", () => {
    const ws = cli(["workspaces", "create", "cli-login", "--json"]).json<{ uid: string }>();
    const env = { RAYRUN_CONFIG: `/tmp/rayrun-login-${ws.uid}.json` };
    expect(cli(["login", "--url", inject("serverUrl"), "--key", inject("bootstrapKey")], env).code).toBe(0);
    expect(cli(["use", ws.uid], env).code).toBe(0);
    const shown = cli(["workspaces", "show", "--json"], { ...env, RAYRUN_URL: "", RAYRUN_KEY: "" });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json<{ uid: string }>().uid).toBe(ws.uid);
  });
});
