// A new user's path through the real `rayrun` executable against the local server:
// the workspace config (show, set, unset, edit in $EDITOR with If-Match), secrets
// read from stdin, the providers and the SDK base URLs (a call through the printed
// URL reaches the fake provider with the secret), approvals held by a tool adapter,
// and the workspace's logs, --follow included. The tests share one workspace and run
// in order, each from the state the one before left.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, HOLDING_ECHO } from "./api.ts";
import { cli, type CliOptions, RAYRUN } from "./run-cli.ts";

const base = () => inject("serverUrl");

let ws = "";
let key = "";
let env: Record<string, string> = {};
let client: Client;
const dir = mkdtempSync(join(tmpdir(), "rayrun-llm-cmds-"));
const W = () => `/v1/workspaces/${ws}`;

interface Run extends CliOptions {
  code?: number;
  env?: Record<string, string>;
}

/** Runs rayrun in the test workspace with the admin key and expects `code` (default 0). */
function run(args: string[], { code = 0, env: extra = {}, ...options }: Run = {}) {
  const res = cli(args, { ...env, ...extra }, options);
  expect(res.code, `rayrun ${args.join(" ")}\n${res.stdout}\n${res.stderr}`).toBe(code);
  return res;
}

async function callEcho(text: string, approvalId?: string): Promise<CallToolResult> {
  return (await client.callTool({
    name: "echo",
    arguments: { text },
    ...(approvalId ? { _meta: { "rayrun/approvalId": approvalId } } : {}),
  })) as CallToolResult;
}

/** Calls the proxy's OpenAI endpoint; answers the authorization header the fake provider received. */
async function keySentUpstream(sdkBaseUrl: string, provider: string): Promise<string | undefined> {
  const res = await fetch(`${sdkBaseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status).toBe(200);
  const received = (await (await fetch(`${provider}/_received`)).json()) as {
    headers: { authorization: string };
  }[];
  return received.at(-1)?.headers.authorization;
}

/** An editor command: a Node script, given the file to edit as its argument. */
const script = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return `node ${join(dir, name)}`;
};
/** `rayrun config edit` with EDITOR set to `editor`. */
const edit = (editor: string, code = 0) => run(["config", "edit"], { code, env: { EDITOR: editor } });

const storedConfig = async () =>
  (await api<{ version: number; config: Record<string, unknown> }>(key, "GET", `${W()}/config`)).data;

beforeAll(async () => {
  const boot = inject("bootstrapKey");
  ws = (await api<{ uid: string }>(boot, "POST", "/v1/workspaces", { name: "llm-commands" })).data.uid;
  key = (
    await api<{ key: string }>(boot, "POST", `${W()}/keys`, {
      scopes: ["admin", "hooks:read", "hooks:write", "tools:call"],
      actor: "new-user",
    })
  ).data.key;
  env = { RAYRUN_KEY: key, RAYRUN_WORKSPACE: ws, VISUAL: "" };
  const url = `${inject("upstreamUrl")}/${ws}/mcp`;
  const svc = (await api<{ uid: string }>(key, "POST", `${W()}/services`, { name: "demo", url })).data.uid;
  const { tools } = (
    await api<{ tools: { uid: string; upstreamName: string }[] }>(
      key,
      "POST",
      `${W()}/services/${svc}/refresh`,
    )
  ).data;
  const hook = `${W()}/tools/${tools.find((t) => t.upstreamName === "echo")?.uid ?? ""}/hook`;
  const etag = (await api(key, "GET", hook)).headers.get("etag") ?? "";
  const draft = { source: HOLDING_ECHO };
  const saved = await api<{ version: number }>(key, "PUT", `${hook}/draft`, draft, { "if-match": etag });
  await api(key, "POST", `${hook}/test`, { stage: "before", arguments: { text: "x" } });
  await api(key, "POST", `${hook}/deployments`, { version: saved.data.version, channel: "active" });
  client = new Client({ name: "llm-commands", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base()}/mcp/${ws}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("rayrun config", () => {
  it("shows the config, sets and unsets one field, and prints the API's reasons for a refusal", async () => {
    const shown = run(["config", "show"]).stdout;
    expect(shown).toContain("defaults (never changed)");
    expect(shown).toMatch(/^retention\.logsDays\s+30$/m);
    expect(run(["config", "set", "retention.logsDays", "14"]).stdout).toContain("config version 1");
    // Not JSON, so a string.
    run(["config", "set", "detailPolicy", "none"]);
    const refused = run(["config", "set", "retention.logsDays", "9999"], { code: 1 });
    expect(refused.stderr).toContain("invalid_request");
    expect(refused.stderr).toMatch(/\/retention\/logsDays: .*365/);
    const after = run(["config", "show", "--json"]).json<{
      version: number;
      config: Record<string, unknown>;
    }>();
    expect(after.version).toBe(2);
    expect(after.config).toMatchObject({ detailPolicy: "none", retention: { logsDays: 14 } });
    run(["config", "unset", "retention.logsDays"]);
    expect((await storedConfig()).config).toMatchObject({
      detailPolicy: "none",
      retention: { logsDays: 30 },
    });
  });

  it("edit saves the editor's change with If-Match; unchanged, invalid JSON and a concurrent change save nothing", async () => {
    expect(edit("true").stdout.trim()).toBe("No changes");
    const toCapture = script(
      "capture.mjs",
      `import { readFileSync, writeFileSync } from "node:fs";
const f = process.argv[2];
writeFileSync(f, readFileSync(f, "utf8").replace('"none"', '"capture"'));`,
    );
    const before = (await storedConfig()).version;
    expect(edit(toCapture).stdout).toContain(`Saved workspace config version ${before + 1}`);
    expect((await storedConfig()).config.detailPolicy).toBe("capture");

    const broken = edit(
      script(
        "broken.mjs",
        `import { writeFileSync } from "node:fs";\nwriteFileSync(process.argv[2], "{ nope");`,
      ),
      1,
    );
    expect(broken.stderr).toMatch(/not valid JSON.*nothing saved/);
    expect((await storedConfig()).version).toBe(before + 1);

    // Another writer saves while the editor is open; the edit's If-Match is then stale.
    const concurrent = script(
      "concurrent.mjs",
      `import { readFileSync, writeFileSync } from "node:fs";
const path = process.env.RAYRUN_URL + "/v1/workspaces/" + process.env.RAYRUN_WORKSPACE + "/config";
const headers = { authorization: "Bearer " + process.env.RAYRUN_KEY, "content-type": "application/json" };
const read = await fetch(path, { headers });
const { config } = await read.json();
const put = await fetch(path, { method: "PUT", headers: { ...headers, "if-match": read.headers.get("etag") }, body: JSON.stringify({ ...config, plugins: ["theirs"] }) });
if (!put.ok) throw new Error(await put.text());
const f = process.argv[2];
writeFileSync(f, readFileSync(f, "utf8").replace('"capture"', '"none"'));`,
    );
    const stale = edit(concurrent, 1);
    expect(stale.stderr).toContain("precondition_failed");
    expect(stale.stderr).toMatch(/changed while you were editing.*nothing saved.*again to retry/);
    expect((await storedConfig()).config).toMatchObject({ detailPolicy: "capture", plugins: ["theirs"] });
  });
});

describe("rayrun secrets and providers", () => {
  it("a key read from stdin reaches the provider through the printed SDK base URL; delete needs --yes", async () => {
    expect(run(["secrets", "set", "PROVIDER_KEY", "sk-typed"], { code: 2 }).stderr).toContain("from stdin");
    run(["secrets", "set", "PROVIDER_KEY"], { input: "sk-cli-secret\n" });
    const provider = `${inject("providerUrl")}/llm-commands`;
    const settings = JSON.stringify({ baseUrl: `${provider}/v1`, apiKeySecret: "PROVIDER_KEY" });
    run(["config", "set", "providers.openai", settings]);
    const table = run(["providers"]).stdout;
    const openaiUrl = `${base()}/llm/${ws}/openai/v1`;
    expect(table).toMatch(
      new RegExp(`^openai\\s+ready\\s+${provider}/v1\\s+PROVIDER_KEY\\s+${openaiUrl}$`, "m"),
    );

    // The trailing newline of the piped value is not part of the secret.
    expect(await keySentUpstream(openaiUrl, provider)).toBe("Bearer sk-cli-secret");
    // On a terminal the value is asked for (the pty echoes only what was typed ahead of the prompt).
    const typed = run(["secrets", "set", "PROVIDER_KEY"], { tty: true, input: "sk-from-tty\n" }).stdout;
    expect(typed).toMatch(/Value for PROVIDER_KEY \(not shown\): \r?\nStored secret PROVIDER_KEY/);
    expect(await keySentUpstream(openaiUrl, provider)).toBe("Bearer sk-from-tty");

    // Without a terminal to ask on, deleting needs --yes.
    expect(run(["secrets", "delete", "PROVIDER_KEY"], { code: 2 }).stderr).toContain("pass --yes");
    expect(run(["secrets", "list"]).stdout).toMatch(/^PROVIDER_KEY\s+\S+\s+new-user$/m);
    run(["secrets", "delete", "PROVIDER_KEY", "--yes"]);
    const after = run(["providers", "--json"]).json<{ items: Record<string, unknown>[] }>().items;
    expect(after.map((p) => [p.name, p.status, p.secretSet, p.proxyBaseUrl])).toEqual([
      ["openai", "secret PROVIDER_KEY not set", false, openaiUrl],
      ["anthropic", "not configured", null, `${base()}/llm/${ws}/anthropic`],
    ]);
  });
});

describe("rayrun approvals and logs", () => {
  it("lists held calls, approves one (the call then goes through once) and denies the other", async () => {
    const held = async (text: string) => {
      const result = await callEcho(text);
      const error = (result._meta as Record<string, { code: string; approvalId: string }>)["rayrun/error"];
      expect(error?.code).toBe("approval_required");
      return error?.approvalId ?? "";
    };
    const ship = await held("approve:ship it");
    const drop = await held("approve:drop it");
    const listed = run(["approvals", "list"]).stdout;
    expect(listed).toMatch(
      new RegExp(`^${ship}\\s+pending\\s+echo\\s+Echoing needs a human\\s+\\{"text":"ship it"\\}`, "m"),
    );
    expect(listed).toContain(drop);
    expect(run(["approvals", "approve", ship]).stdout).toContain(`Approved ${ship} (echo)`);
    run(["approvals", "deny", drop]);
    expect(run(["approvals", "approve", drop], { code: 1 }).stderr).toContain("conflict");
    expect((await callEcho("approve:ship it", ship)).content).toEqual([{ type: "text", text: "ship it" }]);
    expect(run(["approvals", "list", "--json"]).json<{ items: unknown[] }>().items).toEqual([]);
    const denied = run(["approvals", "list", "--status", "denied", "--json"]).json<{
      items: { id: string }[];
    }>();
    expect(denied.items.map((a) => a.id)).toEqual([drop]);
  });

  it("logs takes the hooks logs filters; --follow prints a new run as it arrives and exits 0 on Ctrl-C", async () => {
    const child = spawn(process.execPath, [RAYRUN, "logs", "--follow", "--since", new Date().toISOString()], {
      env: { ...process.env, RAYRUN_URL: base(), RAYRUN_CONFIG: join(dir, "none.json"), ...env },
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = once(child, "exit");
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(done(), stdout).toBe(true);
    };
    try {
      await until(() => stdout.startsWith("TIME"));
      expect(await callEcho("followed")).toMatchObject({ content: [{ type: "text", text: "followed" }] });
      await until(() => /^\S+\s+echo\s+direct\s+before\s+active\s+continue\b/m.test(stdout));
      // Only runs after --since: the header and the new run.
      expect(stdout.trim().split("\n")).toHaveLength(2);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toEqual([0, null]);

    const approvalRuns = run(["logs", "--outcome", "approval", "--json"]).json<{
      items: Record<string, unknown>[];
    }>();
    expect(approvalRuns.items.map((r) => [r.toolName, r.outcome])).toEqual([
      ["echo", "approval"],
      ["echo", "approval"],
    ]);
  });
});
