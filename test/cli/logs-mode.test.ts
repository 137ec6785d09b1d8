// `rayrun hooks logs --mode` and `rayrun logs --mode` against the real local server: a Code Mode
// `execute` through the gateway at `/mcp/{ws}?mode=code` calls a hooked tool, a Direct Mode call
// calls it again, and the CLI lists each under its mode (MODE column, --json, the filter), and
// refuses a mode outside the set with the API's field error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.ts";
import { cli } from "./run-cli.ts";

const CONTINUE_ECHO = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before: ({ arguments: a }) => ({ action: "continue", arguments: a }),
});
`;

interface Run {
  toolName: string | null;
  stage: string;
  mode: string;
  requestId: string;
}

let ws = "";
let env: Record<string, string> = {};
let executionId = "";
let directId = "";

async function connect(key: string, query: string): Promise<Client> {
  const client = new Client({ name: "logs-mode", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${inject("serverUrl")}/mcp/${ws}${query}`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function callOnce(key: string, query: string, name: string, args: Record<string, unknown>) {
  const client = await connect(key, query);
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const requestId = result._meta?.["rayrun/requestId"];
    if (typeof requestId !== "string") throw new Error(`no request id: ${JSON.stringify(result)}`);
    return requestId;
  } finally {
    await client.close();
  }
}

/** `rayrun <args> --json` in the test workspace, retried while the run records are still being written. */
async function listed(args: string[], until: (items: Run[]) => boolean): Promise<Run[]> {
  let items: Run[] = [];
  for (let i = 0; i < 50; i++) {
    const res = cli([...args, "--json"], env);
    expect(res.code, res.stderr).toBe(0);
    items = res.json<{ items: Run[] }>().items;
    if (until(items)) return items;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return items;
}

beforeAll(async () => {
  const boot = inject("bootstrapKey");
  ws = (await api<{ uid: string }>(boot, "POST", "/v1/workspaces", { name: "logs-mode" })).data.uid;
  const W = `/v1/workspaces/${ws}`;
  const key = (
    await api<{ key: string }>(boot, "POST", `${W}/keys`, {
      scopes: ["hooks:read", "hooks:write", "tools:call"],
      actor: "logs-mode",
    })
  ).data.key;
  env = { RAYRUN_KEY: key, RAYRUN_WORKSPACE: ws };
  const url = `${inject("upstreamUrl")}/${ws}/mcp`;
  const svc = (await api<{ uid: string }>(key, "POST", `${W}/services`, { name: "demo", url })).data.uid;
  const { tools } = (
    await api<{ tools: { uid: string; upstreamName: string }[] }>(key, "POST", `${W}/services/${svc}/refresh`)
  ).data;
  const hook = `${W}/tools/${tools.find((t) => t.upstreamName === "echo")?.uid ?? ""}/hook`;
  const etag = (await api(key, "GET", hook)).headers.get("etag") ?? "";
  const saved = await api<{ version: number }>(
    key,
    "PUT",
    `${hook}/draft`,
    { source: CONTINUE_ECHO },
    {
      "if-match": etag,
    },
  );
  await api(key, "POST", `${hook}/test`, { stage: "before", arguments: { text: "x" } });
  await api(key, "POST", `${hook}/deployments`, { version: saved.data.version, channel: "active" });
  executionId = await callOnce(key, "?mode=code", "execute", {
    code: `const r = await tools.echo({ text: "from code" }); return r.content[0].text;`,
  });
  directId = await callOnce(key, "", "echo", { text: "direct" });
});

describe("rayrun logs by mode", () => {
  it("hooks logs --mode code --json lists the execution and the call its code made, and only them", async () => {
    // The call made from the code, and the execution's own record (written when it ended).
    const code = await listed(["hooks", "logs", "--mode", "code"], (items) => items.length >= 2);
    expect(code.map((r) => `${r.toolName} ${r.stage} ${r.mode} ${r.requestId}`).toSorted()).toEqual([
      `echo before code ${executionId}.1`,
      `execute execute code ${executionId}`,
    ]);
    const direct = await listed(["hooks", "logs", "--mode", "direct"], (items) => items.length > 0);
    expect(direct.map((r) => [r.toolName, r.stage, r.mode, r.requestId])).toEqual([
      ["echo", "before", "direct", directId],
    ]);
  });

  it("shows a MODE column, and --request-id of the execution lists its calls", () => {
    const res = cli(["logs", "--tool", "echo"], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^TIME\s+TOOL\s+MODE\s+STAGE\b/m);
    expect(res.stdout).toMatch(new RegExp(`^\\S+\\s+echo\\s+code\\s+before\\s.*${executionId}\\.1$`, "m"));
    expect(res.stdout).toMatch(new RegExp(`^\\S+\\s+echo\\s+direct\\s+before\\s.*${directId}$`, "m"));
    const children = cli(["hooks", "logs", "--request-id", executionId, "--json"], env);
    expect(
      children
        .json<{ items: Run[] }>()
        .items.map((r) => r.requestId)
        .toSorted(),
    ).toEqual([executionId, `${executionId}.1`]);
  });

  it("a mode outside direct|code is refused with the API's field error", () => {
    const res = cli(["hooks", "logs", "--mode", "indirect"], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("invalid_request");
    expect(res.stderr).toMatch(/\/mode: /);
  });
});
