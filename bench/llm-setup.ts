// The LLM bench's workspaces, set up over the public API: the demo upstream as
// one service, the demo provider as the OpenAI provider (its key in a
// workspace secret), and as asked the request hook of
// dev/examples/request-policy.ts and four plugins whose hooks await nothing.
// bench:llm and bench:world share them.
import { readFileSync } from "node:fs";
import type { DevServer } from "./dev-server";
import { api, BENCH_RATE_LIMITS } from "./gateway-setup";
import { benchPluginHooks } from "../test/shared/sandbox/code";

/** A plugin's source file: the hooks bench:stages also times. */
const plugin = (n: number) => `export default ${benchPluginHooks(n)};\n`;

export const PROVIDER_SECRET = "bench-provider-key";

/** Draft → test → active deployment of a workspace file. */
export async function deployFile(
  url: string,
  key: string,
  base: string,
  path: string,
  source: string,
  test: unknown,
) {
  const file = `${base}/files/${encodeURIComponent(path)}`;
  const { headers } = await api(url, key, "GET", file);
  const { data: saved } = await api(
    url,
    key,
    "PUT",
    `${file}/draft`,
    { source, config: {} },
    {
      "if-match": headers.get("etag") ?? "",
    },
  );
  const { data: tested } = await api(url, key, "POST", `${file}/test`, {
    ...(test as object),
    version: saved.version,
  });
  if (!tested.ok) throw new Error(`testing ${path}: ${JSON.stringify(tested)}`);
  await api(url, key, "POST", `${file}/deployments`, {
    version: saved.version,
    channel: "active",
  });
}

export interface LlmWorkspace {
  uid: string;
  key: string;
}

/** Which hooks a workspace deploys: the request hook, the four plugins. */
export interface LlmHooks {
  requestHook: boolean;
  plugins: boolean;
}

export async function setUpLlmWorkspace(
  server: DevServer,
  name: string,
  hooks: LlmHooks,
): Promise<LlmWorkspace> {
  const { url, upstreamUrl, providerUrl, key: bootstrap } = server;
  const { data: ws } = await api(url, bootstrap, "POST", "/v1/workspaces", {
    name,
  });
  const base = `/v1/workspaces/${String(ws.uid)}`;
  const { data: admin } = await api(url, bootstrap, "POST", `${base}/keys`, {
    scopes: ["admin", "hooks:read", "hooks:write", "tools:call"],
    actor: "bench",
  });
  const key = String(admin.key);
  const { data: service } = await api(url, key, "POST", `${base}/services`, {
    name: "demo",
    url: `${upstreamUrl}/bench-${name}/mcp`,
    payloadCapture: false,
  });
  await api(url, key, "POST", `${base}/services/${String(service.uid)}/refresh`);
  await api(url, key, "PUT", `${base}/secrets/${PROVIDER_SECRET}`, {
    value: "sk-bench",
  });
  const config: Record<string, unknown> = {
    ...BENCH_RATE_LIMITS,
    providers: {
      openai: {
        baseUrl: `${providerUrl}/bench-${name}/v1`,
        apiKeySecret: PROVIDER_SECRET,
      },
    },
  };
  if (hooks.requestHook) {
    const policy = readFileSync(new URL("../dev/examples/request-policy.ts", import.meta.url), "utf8");
    await deployFile(url, key, base, "lib/request-policy.ts", policy, {
      export: "transform",
      input: {
        request: {
          messages: [{ role: "user", content: "hi" }],
          tools: [],
          options: {},
        },
        loop: { name: "main" },
      },
    });
    config.pre_llm_hook = {
      source: "lib/request-policy.ts:transform",
      scope: "all",
    };
  }
  if (hooks.plugins) {
    const names = ["p1", "p2", "p3", "p4"];
    for (const [i, plugin_] of names.entries()) {
      await deployFile(url, key, base, `plugins/${plugin_}.ts`, plugin(i + 1), {
        hook: "tool.execute.before",
        input: { toolID: "echo", args: { text: "hi" } },
      });
    }
    config.plugins = names;
  }
  const { headers } = await api(url, key, "GET", `${base}/config`);
  await api(url, key, "PUT", `${base}/config`, config, {
    "if-match": headers.get("etag") ?? "",
  });
  return { uid: String(ws.uid), key };
}
