// Seeds the demo workspace `npm start` prints: the demo upstream MCP server
// registered and indexed, the example adapter deployed active on its
// `search_release_notes` tool, an admin key, and the LLM proxy:
// both providers pointing at the demo LLM provider with a demo key in a
// workspace secret, the request-hook examples deployed as lib/ files and
// lib/request-policy.ts:transform as the `pre_llm_hook`; and the plugin
// examples deployed under plugins/ with the
// config's `plugins` order; and the web console's admin user `demo-admin`, with a fresh
// one-use sign-in link on every run (`signInUrl`). Runs once per state folder (a workspace
// seeded before the LLM or plugin part existed gets just the missing parts).
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
    source: example("fast-rag-hook.ts"),
    // The test console answers host calls from mocks: the retrieval lambda's answer is given here.
    test: {
      export: "transform",
      input: {
        request: {
          messages: [{ role: "user", content: "When does the office open?" }],
          tools: [],
          options: {},
        },
        loop: { name: "main" },
      },
      hostCalls: [{ name: "lambda", result: { messages: [{ role: "user", content: "enriched" }] } }],
    },
  },
];

/**
 * The config's `plugins` order: redact, then broken (its throws are dropped and
 * logged), then temperature. word-count is not listed: it runs auto-discovered,
 * after them.
 */
export const DEMO_PLUGIN_ORDER = ["redact", "broken", "temperature"];

/** The tool.execute.after payload of an `echo` call, as the MCP path builds it. */
const ECHO_AFTER = {
  toolID: "echo",
  args: { text: "card 4111 1111 1111 1111" },
  result: { title: "echo", output: "card 4111 1111 1111 1111", metadata: { isError: false } },
};

/** The plugin examples, their workspace paths, and a test-console run of a hook that completes. */
const PLUGIN_FILES = [
  { name: "redact", test: { hook: "tool.execute.after", input: ECHO_AFTER } },
  { name: "broken", test: { hook: "tool.execute.before", input: { toolID: "echo", args: { text: "hi" } } } },
  { name: "temperature", test: { hook: "chat.params", input: { model: "demo", temperature: 0.7 } } },
  {
    name: "word-count",
    // An observing hook besides the tool, so that every tool call in the demo
    // also shows a plugin hook that passes; the test run below exercises it
    // (the test console also completes a run of `tool` itself).
    edit: (source) =>
      source.replace(
        "export default {",
        `export default {
  // Added by npm start's demo: an observer that passes on every tool call.
  "tool.execute.before": () => undefined,`,
      ),
    test: { hook: "tool.execute.before", input: { toolID: "echo", args: { text: "hi" } } },
  },
].map(({ name, test, edit = (source) => source }) => ({
  path: `plugins/${name}.ts`,
  source: edit(example(`plugins/${name}.ts`)),
  test,
}));

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
async function deployFile(url, key, base, { path, source, test }) {
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
  for (const file of LIB_FILES) await deployFile(url, key, base, file);
  const { headers } = await api(url, key, "GET", `${base}/config`);
  await api(url, key, "PUT", `${base}/config`, demoLlmConfig(providerUrl), {
    "if-match": headers.get("etag"),
  });
}

/** The plugin examples deployed active, and the config's `plugins` order merged into the config. */
async function seedPlugins(url, key, base) {
  for (const file of PLUGIN_FILES) await deployFile(url, key, base, file);
  const { data: stored, headers } = await api(url, key, "GET", `${base}/config`);
  await api(
    url,
    key,
    "PUT",
    `${base}/config`,
    { ...stored.config, plugins: DEMO_PLUGIN_ORDER },
    { "if-match": headers.get("etag") },
  );
}

/** The web console's demo user: an admin, invited on first use. */
export const DEMO_USER = "demo-admin";

/**
 * A fresh one-use sign-in link (24 h) for the demo user, inviting it first if the
 * workspace has none. Links are spent by use, so every start mints a new one.
 */
async function demoSignIn(url, key, workspace) {
  const users = `/v1/workspaces/${workspace}/users`;
  const { data } = await api(url, key, "GET", users);
  const existing = data.users.find((user) => user.name === DEMO_USER);
  if (existing) {
    const { data: link } = await api(url, key, "POST", `${users}/${existing.id}/sign-in-links`);
    return link.signIn.url;
  }
  const { data: invited } = await api(url, key, "POST", users, { name: DEMO_USER, role: "admin" });
  return invited.signIn.url;
}

/**
 * @param {{ url: string, upstreamUrl: string, providerUrl: string, key: string, stateDir: string }} options
 * @returns {Promise<{ workspace: string, key: string, tool: string, llm: true, plugins: true, signInUrl: string }>}
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
      if (!(demo.llm && demo.plugins)) {
        const base = `/v1/workspaces/${demo.workspace}`;
        if (!demo.llm) await seedLlm(url, demo.key, base, providerUrl);
        await seedPlugins(url, demo.key, base);
        save({ ...demo, llm: true, plugins: true });
      }
      const current = { ...demo, llm: true, plugins: true };
      return { ...current, signInUrl: await demoSignIn(url, current.key, current.workspace) };
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
  await seedPlugins(url, admin.key, base);
  const demo = { workspace: ws.uid, key: admin.key, tool: tool.uid, llm: true, plugins: true };
  save(demo);
  return { ...demo, signInUrl: await demoSignIn(url, admin.key, ws.uid) };
}
