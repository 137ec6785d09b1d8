// docs/request-hooks.md, "Setting up an LLM provider": its commands run as the page shows them,
// in a new workspace with an admin key, and leave a provider an SDK reaches through the printed
// base URL with the printed key. The page's upstreams (api.openai.com, api.anthropic.com) are
// swapped for the fake provider; nothing else in the block is changed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.ts";
import { RAYRUN } from "./run-cli.ts";

const PAGE = new URL("../../docs/request-hooks.md", import.meta.url);
const HEADING = "## Setting up an LLM provider";
const dir = mkdtempSync(join(tmpdir(), "rayrun-provider-doc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The section's shell blocks, joined. */
function sectionCommands(): string {
  const text = readFileSync(PAGE, "utf8");
  const start = text.indexOf(`\n${HEADING}\n`);
  expect(start, `docs/request-hooks.md has no "${HEADING}"`).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + HEADING.length);
  const section = text.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
  expect(blocks.length).toBeGreaterThan(0);
  return blocks.join("\n");
}

describe("the provider set-up of docs/request-hooks.md", () => {
  it("runs as shown: both providers ready, and an SDK call through the printed URL carries the secret", async () => {
    const boot = inject("bootstrapKey");
    const ws = (await api<{ uid: string }>(boot, "POST", "/v1/workspaces", { name: "provider-doc" })).data
      .uid;
    const admin = (
      await api<{ key: string }>(boot, "POST", `/v1/workspaces/${ws}/keys`, {
        scopes: ["admin"],
        actor: "doc-reader",
      })
    ).data.key;
    const provider = `${inject("providerUrl")}/${ws}`;
    const commands = sectionCommands()
      .replaceAll("https://api.openai.com/v1", `${provider}/v1`)
      .replaceAll("https://api.anthropic.com", provider);
    expect(commands).toContain("npx rayrun providers");
    // The page's `npx rayrun` is the checkout's bin, run here without npx's own start-up.
    const shell = `npx() { [ "$1" = rayrun ] || exit 97; shift; "${process.execPath}" "${RAYRUN}" "$@"; }\n${commands}`;
    const run = spawnSync("bash", ["-euo", "pipefail", "-c", shell], {
      encoding: "utf8",
      env: {
        ...process.env,
        RAYRUN_URL: inject("serverUrl"),
        RAYRUN_KEY: admin,
        RAYRUN_WORKSPACE: ws,
        RAYRUN_CONFIG: join(dir, "config.json"),
        OPENAI_API_KEY: "sk-doc-openai",
        ANTHROPIC_API_KEY: "sk-doc-anthropic",
      },
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);

    const rows = run.stdout.split("\n");
    const row = (name: string) => rows.find((line) => line.startsWith(`${name} `)) ?? "";
    expect(row("openai")).toMatch(/^openai\s+ready\s/);
    expect(row("anthropic")).toMatch(/^anthropic\s+ready\s/);
    const sdkBaseUrl = /(\S+\/llm\/\S+\/openai\/v1)$/.exec(row("openai"))?.[1] ?? "";
    expect(sdkBaseUrl).toBe(`${inject("serverUrl")}/llm/${ws}/openai/v1`);
    const agentKey = /^Key \S+ \(shown once\):\n(\S+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(agentKey).not.toBe("");

    const res = await fetch(`${sdkBaseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const received = (await (await fetch(`${provider}/_received`)).json()) as {
      headers: { authorization?: string };
    }[];
    expect(received.at(-1)?.headers.authorization).toBe("Bearer sk-doc-openai");
  });
});
