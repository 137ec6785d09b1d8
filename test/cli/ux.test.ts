// A new user's path through the real `rayrun` executable against a local server:
// the API's field errors and compile diagnostics, missing files, saving drafts
// that do not compile, human output, confirmations, values meant as JSON that are
// not, negative numbers and unknown options, typos, --help's scopes, the spinner
// and shell completion.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.ts";
import { cli } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rayrun-ux-"));
const local = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** Setup the tests do not exercise, with the bootstrap key. */
const boot = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
  (await api<T>(inject("bootstrapKey"), method, path, body)).data;

let ws = "";
let demo = "";
const env = () => ({ RAYRUN_WORKSPACE: ws });

beforeAll(async () => {
  ws = (await boot<{ uid: string }>("POST", "/v1/workspaces", { name: "cli-ux" })).uid;
  const upstream = `${inject("upstreamUrl")}/${ws}/mcp`;
  demo = (
    await boot<{ uid: string }>("POST", `/v1/workspaces/${ws}/services`, { name: "demo", url: upstream })
  ).uid;
  await boot("POST", `/v1/workspaces/${ws}/services/${demo}/refresh`);
});

describe("rayrun for a new user", () => {
  it("prints each field the API refused under the problem, and in the --json error", () => {
    const key = cli(["keys", "create", "--scopes", "bogus", "--actor", "x", "--json"], env());
    expect(key.code).toBe(1);
    const { error } = key.json<{ error: { code: string; errors: { path: string; message: string }[] } }>();
    expect(error.code).toBe("invalid_request");
    expect(error.errors[0]?.path).toBe("/scopes/0");
    const [head, ...under] = key.stderr.trimEnd().split("\n");
    expect(head).toMatch(/^rayrun: invalid_request: /);
    // The API's own message names the valid scopes.
    expect(under).toEqual([`  /scopes/0: ${error.errors[0]?.message}`]);
    expect(under[0]).toContain("hooks:write");

    const logs = cli(["hooks", "logs", "--since", "yesterday"], env());
    expect(logs.code).toBe(1);
    expect(logs.stderr).toMatch(/^rayrun: invalid_request: Invalid log filters\.\n {2}\/since: \S/);
  });

  it("refuses a file it cannot read with one usage line and exit 2", () => {
    const adapter = local("ok.ts", "export default {};\n");
    const runs = [
      [["hooks", "save", "--tool", "echo", "--file", join(dir, "nope.ts")], join(dir, "nope.ts")],
      [
        ["hooks", "save", "--tool", "echo", "--file", adapter, "--config", join(dir, "c.json")],
        join(dir, "c.json"),
      ],
      [["files", "save", "lib/a.ts", "--file", dir], dir],
    ] as const;
    for (const [args, path] of runs) {
      const res = cli([...args], env());
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toBe(
        `rayrun: cannot read ${path}: ${path === dir ? "is a directory" : "no such file"}\n`,
      );
    }
  });

  it("saves a draft that does not compile, warns where, and says when the API reformatted it", () => {
    const broken = local(
      "broken.ts",
      `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: a ),
});
`,
    );
    const saved = cli(["hooks", "save", "--tool", "echo", "--file", broken], env());
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toBe("Saved version 1\n");
    expect(saved.stderr).toMatch(
      new RegExp(`^warning: version 1 does not compile.*\\n {2}${broken}:3:\\d+ \\S`),
    );
    // The test console compiles the version first: the same place, under the problem.
    const test = cli(["hooks", "test", "--tool", "echo", "--stage", "before", "--json"], env());
    expect(test.code).toBe(1);
    const diagnostics = test.json<{ error: { code: string; diagnostics: { line: number }[] } }>().error;
    expect(diagnostics.code).toBe("compile_failed");
    expect(diagnostics.diagnostics[0]?.line).toBe(3);
    expect(test.stderr).toMatch(/^rayrun: compile_failed: .*\n {2}3:\d+ \S/);

    // Not only syntax: the API's compiler reports what the adapter lacks.
    const stageless = local(
      "stageless.ts",
      `export default defineToolAdapter({ apiVersion: "rayrun.hooks/v1" });\n`,
    );
    const json = cli(["hooks", "save", "--tool", "echo", "--file", stageless, "--json"], env());
    expect(json.json()).toMatchObject({
      version: 2,
      reformatted: false,
      diagnostics: [{ code: "missing_stage" }],
    });
    expect(json.stderr).toContain(`${stageless}:1:`);

    const messy = local(
      "messy.ts",
      `export default defineToolAdapter({apiVersion:"rayrun.hooks/v1",before:({arguments:a})=>({action:"continue",arguments:a})})`,
    );
    const formatted = cli(["hooks", "save", "--tool", "echo", "--file", messy], env());
    expect(formatted.stdout).toBe(
      `Saved version 3 (formatted by the API with Prettier, so it differs from ${messy})\n`,
    );
    expect(formatted.stderr).toBe("");

    // Workspace files have no compile route: the syntax is located locally.
    const lib = local("lib.ts", "export function main(input) {\n  return { x: 1 ;\n}\n");
    const file = cli(["files", "save", "lib/broken.ts", "--file", lib], env());
    expect(file.code, file.stderr).toBe(0);
    expect(file.stderr).toMatch(new RegExp(`^warning: version 1 does not compile.*\\n {2}${lib}:2:\\d+ \\S`));
  });

  it("shows a hook and a workspace as key-value text, JSON only with --json", () => {
    const hook = cli(["hooks", "show", "--tool", "echo"], env());
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stdout).toMatch(
      /^version\s+3\nsaved\s+\S+ by \S+ via cli\nconfig\s+\{\}\nactive\s+-\nshadow\s+-\n\n/,
    );
    expect(hook.stdout).toContain('apiVersion: "rayrun.hooks/v1",');
    const shown = cli(["workspaces", "show"], env());
    expect(shown.stdout).toMatch(
      new RegExp(`^workspace\\s+${ws}\\nname\\s+cli-ux\\ncreated\\s+\\S+ by \\S+\\n$`),
    );
  });

  it("asks before destroying on a terminal, refuses without one, and takes --yes", async () => {
    const spare = await boot<{ uid: string }>("POST", `/v1/workspaces/${ws}/services`, {
      name: "spare",
      url: `${inject("upstreamUrl")}/${ws}/mcp`,
    });
    const live = async () =>
      (await boot<{ items: { uid: string }[] }>("GET", `/v1/workspaces/${ws}/services`)).items.some(
        (s) => s.uid === spare.uid,
      );
    const piped = cli(["services", "delete", spare.uid], env());
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/^rayrun: delete service \S+: .*; pass --yes to confirm\n$/);
    const declined = cli(["services", "delete", spare.uid], env(), { tty: true, input: "n\n" });
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain(
      `delete service ${spare.uid}? its tools can no longer be called. [y/N]`,
    );
    expect(declined.stdout).toContain("rayrun: aborted: nothing was changed");
    expect(await live()).toBe(true);
    const accepted = cli(["services", "delete", spare.uid], env(), { tty: true, input: "y\n" });
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.stdout).toContain("Deleted");
    expect(await live()).toBe(false);

    const key = await boot<{ id: string }>("POST", `/v1/workspaces/${ws}/keys`, {
      scopes: ["hooks:read"],
      actor: "temp",
    });
    expect(cli(["keys", "revoke", key.id], env()).code).toBe(2);
    expect(cli(["keys", "revoke", key.id, "--yes"], env()).stdout).toBe(`Revoked ${key.id}\n`);
  });

  it("says where a value meant as JSON stops parsing, and saves nothing", async () => {
    const broken = cli(["config", "set", "pre_llm_hook", '{"source":"lib/x.ts",'], env());
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(
      [
        "rayrun: the value for pre_llm_hook is not valid JSON: Expected double-quoted property name at character 22; nothing saved",
        '  {"source":"lib/x.ts",',
        `  ${" ".repeat(21)}^`,
        "",
      ].join("\n"),
    );
    const token = cli(["config", "set", "pre_llm_hook.loops", '["a",]'], env());
    expect(token.stderr.split("\n").slice(1, 3)).toEqual(['  ["a",]', `  ${" ".repeat(5)}^`]);
    expect(await boot("GET", `/v1/workspaces/${ws}/config`)).toMatchObject({ version: 0 });
    // Text that does not start like JSON is still a string.
    const plain = cli(["config", "set", "pre_llm_hook.source", "lib/x.ts:transform", "--json"], env());
    expect(plain.stderr).not.toContain("not valid JSON");
  });

  it("takes a negative number as a value, and names an unknown option with balanced quotes", () => {
    const negative = cli(["config", "set", "pre_llm_hook.timeout_ms", "-5"], env());
    // The API, not the command line, refuses it: the value reached it.
    expect(negative.code, negative.stderr).toBe(1);
    expect(negative.stderr).toMatch(/^rayrun: invalid_request: /);
    expect(negative.stderr).toContain("/pre_llm_hook/timeout_ms");
    const unknown = cli(["hooks", "show", "--tol", "echo"], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("rayrun: unknown option --tol; did you mean --tool? (see rayrun --help)\n");
    const dashed = cli(["hooks", "save", "-x"], env());
    expect(dashed.stderr).toBe(
      'rayrun: unknown option -x; an argument that starts with "-" goes after "--", as in: rayrun … -- -x (see rayrun --help)\n',
    );
    for (const text of [unknown.stderr, dashed.stderr]) {
      expect(text.split("'").length % 2, text).toBe(1);
      expect(text.split('"').length % 2, text).toBe(1);
    }
  });

  it("suggests the command or subcommand meant by a typo", () => {
    const typos = [
      [["hooks", "deplyo"], "unknown command: hooks deplyo; did you mean deploy?"],
      [["hoks", "list"], "unknown command: hoks; did you mean hooks?"],
      [["secrest", "list"], "unknown command: secrest; did you mean secrets?"],
      [["hooks", "frobnicate"], "unknown command: hooks frobnicate"],
    ] as const;
    for (const [args, said] of typos) {
      const res = cli([...args], env());
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(`rayrun: ${said} (see rayrun --help)\n`);
    }
    expect(cli(["files"], env()).stderr).toMatch(
      /^rayrun: files needs a subcommand: show, save, .*, list, test, logs \(see rayrun --help\)\n$/,
    );
  });

  it("lists in --help exactly the scopes the API accepts", async () => {
    const doc = await boot<{ paths: Record<string, Record<string, unknown>> }>("GET", "/v1/openapi.json");
    const body = doc.paths["/v1/workspaces/{ws}/keys"]?.post as {
      requestBody: {
        content: Record<string, { schema: { properties: { scopes: { items: { enum: string[] } } } } }>;
      };
    };
    const accepted = body.requestBody.content["application/json"]?.schema.properties.scopes.items.enum ?? [];
    expect(accepted.length).toBeGreaterThan(0);
    const help = cli(["--help"]).stdout;
    const listed = /\(scopes: ([^)]+)\)/.exec(help)?.[1]?.split(", ") ?? [];
    expect(listed.toSorted()).toEqual(accepted.toSorted());
  });

  it("spins on a terminal while the upstream is listed, and prints nothing extra when piped", () => {
    const piped = cli(["services", "refresh", demo], env());
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe("");
    expect(piped.stdout).toMatch(/^Indexed: /);
    const terminal = cli(["services", "refresh", demo], env(), { tty: true });
    expect(terminal.code, terminal.stdout).toBe(0);
    // A frame, then the line erased before the result.
    expect(terminal.stdout).toContain("⠋ listing the upstream's tools");
    expect(terminal.stdout).toContain("\r\u001b[2KIndexed: ");
  });

  it("completes commands, subcommands and options from the command table", () => {
    const script = cli(["completion", "bash"]).stdout;
    const harness = `${script}
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _rayrun; echo "\${COMPREPLY[*]}"; }
complete_words rayrun hoo
complete_words rayrun hooks sa
complete_words rayrun --workspace ws files dep
complete_words rayrun hooks save --fi
complete_words rayrun hooks deploy 2 --channel sh
complete_words rayrun hooks logs --mode c
complete_words rayrun hooks logs --outcome turn
complete_words rayrun completion ""
complete -p rayrun`;
    const bash = spawnSync("bash", ["-c", harness], { encoding: "utf8" });
    expect(bash.stderr).toBe("");
    expect(bash.stdout.split("\n")).toEqual([
      "hooks",
      "save",
      "deploy",
      "--file",
      "shadow",
      "code",
      "turn_error_retry",
      "bash zsh fish",
      "complete -F _rayrun rayrun",
      "",
    ]);
    for (const [shell, marker] of [
      ["zsh", "compdef _rayrun rayrun"],
      ["fish", "complete -c rayrun -l workspace -x"],
    ] as const) {
      const out = cli(["completion", shell]);
      expect(out.stdout).toContain(marker);
      expect(out.stdout).toMatch(/hooks.*deploy/);
      // `.ci/run` installs both shells (apt-get install zsh fish).
      const file = join(mkdtempSync(join(tmpdir(), "rayrun-completion-")), `rayrun.${shell}`);
      writeFileSync(file, out.stdout);
      const parsed = spawnSync(shell, ["-n", file], { encoding: "utf8" });
      expect(parsed.error, `${shell} is not installed: apt-get install -y zsh fish`).toBeUndefined();
      expect(parsed.status, `${shell} -n: ${parsed.stderr}`).toBe(0);
    }
    const fish = spawnSync(
      "fish",
      [
        "-c",
        `${cli(["completion", "fish"]).stdout}\ncomplete -C 'rayrun hoo'; complete -C 'rayrun hooks dep'`,
      ],
      { encoding: "utf8" },
    );
    expect(fish.stdout.split("\n").map((line) => line.split("\t")[0])).toEqual(["hooks", "deploy", ""]);
  });
});
