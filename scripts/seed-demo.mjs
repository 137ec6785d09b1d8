// Seeds the demo workspace `npm start` prints: the demo upstream MCP server
// registered and indexed, the seed's example adapter deployed active on its
// `search_release_notes` tool, an admin key, and the LLM proxy (seed 002):
// both providers pointing at the demo LLM provider with a demo key in a
// workspace secret, the request-hook examples deployed as lib/ files and
// lib/request-policy.ts:transform as the `pre_llm_hook`. Runs once per state
// folder (a workspace seeded before the LLM part existed gets just that part).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const example = (name) => readFileSync(new URL(`../dev/examples/${name}`, import.meta.url), "utf8");
const ADAPTER = example("search-release-notes.ts");

/** The workspace secret holding the demo provider's key; the fake provider accepts any key. */
export const DEMO_PROVIDER_SECRET = "demo-provider-key";
export const DEMO_PROVIDER_KEY = "sk-demo-provider";
/** The fake provider's id in the demo: its URLs are `<providerUrl>/demo/…`. */
export const DEMO_PROVIDER_ID = "demo";

/** The request-hook examples, their workspace paths, and a test-console run that makes each deployable. */
const LIB_FILES = [
  {
    path: "lib/request-policy.ts",
    source: example("request-policy.ts"),
    test: {
      export: "transform",
      input: {
        request: { messages: [{ role: "user", content: "hi" }], tools: [], options: {} },
        loop: { name: "main" },
      },
    },
  },
  {
    path: "lib/fast-rag.ts",
    source: example("fast-rag.ts"),
    test: {
      export: "enrichMessages",
      input: { messages: [{ role: "user", content: "When does the office open?" }], loop: "main" },
    },
  },
  {
    path: "lib/fast-rag-hook.ts",
    // The test console lends no `rayrun` (no host capabilities), so `transform`
    // cannot complete a test run there; deploying needs one completed run of
    // the version, which this extra export provides. `transform` is as written.
    source: `${example("fast-rag-hook.ts")}
// Added by npm start's seed: the test console cannot run \`transform\` (no \`rayrun\` there).
export function probe() {
  return "ok";
}
`,
    test: { export: "probe", input: null },
  },
];

/** The workspace config the seed writes: providers on the demo LLM provider, the tool-filtering hook. */
export function demoLlmConfig(providerUrl) {
  const root = `${providerUrl}/${DEMO_PROVIDER_ID}`;
  return {
    providers: {
      openai: { baseUrl: `${root}/v1`, apiKeySecret: DEMO_PROVIDER_SECRET },
      anthropic: { baseUrl: root, apiKeySecret: DEMO_PROVIDER_SECRET },
    },
    pre_llm_hook: { source: "lib/request-policy.ts:transform", scope: "all" },
  };
}

async function api(base, key, method, path, body, headers = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return { data: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Draft → test → active deployment of a workspace file, as for a tool's adapter. */
async function deployLibFile(url, key, base, { path, source, test }) {
  const file = `${base}/files/${encodeURIComponent(path)}`;
  const { headers } = await api(url, key, "GET", file);
  const { data: saved } = await api(
    url,
    key,
    "PUT",
    `${file}/draft`,
    { source, config: {}, note: "seeded by npm start" },
    { "if-match": headers.get("etag") },
  );
  const { data: run } = await api(url, key, "POST", `${file}/test`, { ...test, version: saved.version });
  if (!run.ok) throw new Error(`testing ${path} failed (${run.code}): ${run.message}`);
  await api(url, key, "POST", `${file}/deployments`, { version: saved.version, channel: "active" });
}

async function seedLlm(url, key, base, providerUrl) {
  await api(url, key, "PUT", `${base}/secrets/${DEMO_PROVIDER_SECRET}`, { value: DEMO_PROVIDER_KEY });
  for (const file of LIB_FILES) await deployLibFile(url, key, base, file);
  const { headers } = await api(url, key, "GET", `${base}/config`);
  await api(url, key, "PUT", `${base}/config`, demoLlmConfig(providerUrl), {
    "if-match": headers.get("etag"),
  });
}

/**
 * @param {{ url: string, upstreamUrl: string, providerUrl: string, key: string, stateDir: string }} options
 * @returns {Promise<{ workspace: string, key: string, tool: string, llm: true }>}
 */
export async function seedDemo({ url, upstreamUrl, providerUrl, key: bootstrap, stateDir }) {
  const marker = join(stateDir, "demo.json");
  const save = (demo) => writeFileSync(marker, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  if (existsSync(marker)) {
    const demo = JSON.parse(readFileSync(marker, "utf8"));
    const res = await fetch(`${url}/v1/workspaces/${demo.workspace}`, {
      headers: { authorization: `Bearer ${bootstrap}` },
    });
    if (res.ok) {
      if (demo.llm) return demo;
      await seedLlm(url, demo.key, `/v1/workspaces/${demo.workspace}`, providerUrl);
      const upgraded = { ...demo, llm: true };
      save(upgraded);
      return upgraded;
    }
  }
  const { data: ws } = await api(url, bootstrap, "POST", "/v1/workspaces", { name: "demo" });
  const base = `/v1/workspaces/${ws.uid}`;
  const { data: admin } = await api(url, bootstrap, "POST", `${base}/keys`, {
    scopes: ["admin", "hooks:read", "hooks:write", "tools:call"],
    actor: "demo-admin",
  });
  const { data: service } = await api(url, admin.key, "POST", `${base}/services`, {
    name: "demo",
    url: `${upstreamUrl}/demo/mcp`,
    payloadCapture: true,
  });
  const { data: indexed } = await api(url, admin.key, "POST", `${base}/services/${service.uid}/refresh`);
  const tool = indexed.tools.find((t) => t.upstreamName === "search_release_notes");
  const hook = `${base}/tools/${tool.uid}/hook`;
  const { headers } = await api(url, admin.key, "GET", hook);
  await api(
    url,
    admin.key,
    "PUT",
    `${hook}/draft`,
    { source: ADAPTER, config: { prefix: "" }, note: "seeded by npm start" },
    {
      "if-match": headers.get("etag"),
    },
  );
  await api(url, admin.key, "POST", `${hook}/test`, { stage: "before", arguments: { query: "webhooks" } });
  await api(url, admin.key, "POST", `${hook}/deployments`, { version: 1, channel: "active" });
  await seedLlm(url, admin.key, base, providerUrl);
  const demo = { workspace: ws.uid, key: admin.key, tool: tool.uid, llm: true };
  save(demo);
  return demo;
}
