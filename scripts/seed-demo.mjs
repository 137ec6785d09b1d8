// Seeds the demo workspace `npm start` prints: the demo upstream MCP server
// registered and indexed, the seed's example adapter deployed active on its
// `search_release_notes` tool, and an admin key. Runs once per state folder.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ADAPTER = readFileSync(new URL("../dev/examples/search-release-notes.ts", import.meta.url), "utf8");

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

/** @returns {Promise<{ workspace: string, key: string, tool: string }>} */
export async function seedDemo({ url, upstreamUrl, key: bootstrap, stateDir }) {
  const marker = join(stateDir, "demo.json");
  if (existsSync(marker)) {
    const demo = JSON.parse(readFileSync(marker, "utf8"));
    const res = await fetch(`${url}/v1/workspaces/${demo.workspace}`, {
      headers: { authorization: `Bearer ${bootstrap}` },
    });
    if (res.ok) return demo;
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
  const demo = { workspace: ws.uid, key: admin.key, tool: tool.uid };
  writeFileSync(marker, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
