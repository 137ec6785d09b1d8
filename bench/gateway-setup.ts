// The gateway bench's workspace, set up over the public API: a key, the demo
// upstream registered once per case (each service on its own upstream prefix,
// so no case shares an upstream session or a catalog entry with another), and
// an adapter deployed on each hooked case's tool.
/** A ~2 KB adapter of the usual kind: normalises the query, rewrites arguments, trims the result. */
export const ADAPTER_SOURCE = `
const MAX_RESULTS = 25;
const STOP_WORDS = new Set(["a", "an", "the", "of", "and", "or", "to", "in"]);
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function normaliseQuery(text: string): string {
  return text
    .toLowerCase()
    .split(/\\s+/)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .join(" ")
    .slice(0, 200);
}

interface Item { title: string; score: number }

export default defineToolAdapter<{ query: string; limit?: number; product?: string }, { items: Item[] }>({
  apiVersion: "rayrun.hooks/v1",
  publicContract: {
    description: "Search release notes with a normalised query",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Free text" },
        limit: { type: "integer", minimum: 1, maximum: 100 },
        product: { type: "string", enum: ["workers", "pages", "r2", "d1"] },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", properties: { title: { type: "string" }, score: { type: "number" } } } },
        total: { type: "integer" },
      },
      required: ["items", "total"],
    },
  },
  before({ arguments: args, context }) {
    const query = normaliseQuery(args.query);
    if (query === "") return { action: "reject", reason: "empty_query", message: "The query has no searchable words." };
    const limit = clamp(typeof args.limit === "number" ? args.limit : 10, 1, MAX_RESULTS);
    const prefix = typeof context.config.prefix === "string" ? context.config.prefix : "";
    context.log.info("search", { query, limit, product: args.product ?? null });
    return { action: "continue", arguments: { q: prefix + (args.product ? "product:" + args.product + " " : "") + query } };
  },
  after({ result, context }) {
    const items = Array.isArray(result.items) ? result.items : [];
    const trimmed = items
      .slice(0, MAX_RESULTS)
      .map((item) => ({ title: String(item.title).slice(0, 200), score: Math.round(item.score * 100) / 100 }));
    if (trimmed.length < items.length) context.log.debug("trimmed", { from: items.length, to: trimmed.length });
    return { action: "return", result: { items: trimmed, total: items.length } };
  },
});
`;

/**
 * The cheapest adapters there are, for `--diag`: their stages return what they
 * get, so (c) minus them is what the 2 KB adapter's own code costs, and each
 * of them minus (b) what running one or two stages costs at all. No public
 * contract: the upstream's schemas are validated, as for (b).
 */
export const MINIMAL_BEFORE_SOURCE = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: args }) {
    return { action: "continue", arguments: args };
  },
});
`;
export const MINIMAL_BOTH_SOURCE = `
export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: args }) {
    return { action: "continue", arguments: args };
  },
  after({ result }) {
    return { action: "return", result };
  },
});
`;

/** Config that lets one bench key send as fast as the gateway takes it. */
export const BENCH_RATE_LIMITS = { rateLimits: { mcpPerMinute: 60000, llmPerMinute: 60000 } };

/** One API request with `key`; the answer's JSON and headers, or a thrown error naming the status. */
export async function api(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return { data: (text ? JSON.parse(text) : null) as Record<string, unknown>, headers: res.headers };
}

/** A service of the bench workspace: its public tool name and, when hooked, the adapter deployed on it. */
export interface BenchService {
  /** The service's name; its upstream is the demo server under `/bench-<name>/mcp`. */
  name: string;
  adapter?: { source: string; test: Record<string, unknown> };
}

export interface BenchWorkspace {
  uid: string;
  key: string;
  /** Public tool name per service (names shared by two services become `{service}__{tool}`). */
  names: Record<string, string>;
  /** Compiled bytes per hooked service. */
  compiledBytes: Record<string, unknown>;
}

export async function setUpWorkspace(
  url: string,
  upstreamUrl: string,
  bootstrap: string,
  services: readonly BenchService[],
): Promise<BenchWorkspace> {
  const { data: ws } = await api(url, bootstrap, "POST", "/v1/workspaces", { name: "bench" });
  const base = `/v1/workspaces/${String(ws.uid)}`;
  const { data: admin } = await api(url, bootstrap, "POST", `${base}/keys`, {
    scopes: ["admin", "hooks:read", "hooks:write", "tools:call"],
    actor: "bench",
  });
  const key = String(admin.key);
  // The highest per-key rate a workspace may choose: the benches measure the gateway, not its limiter's refusals.
  const { headers: configHeaders } = await api(url, key, "GET", `${base}/config`);
  await api(url, key, "PUT", `${base}/config`, BENCH_RATE_LIMITS, {
    "if-match": configHeaders.get("etag") ?? "",
  });
  const uids: Record<string, string> = {};
  for (const { name } of services) {
    const { data: created } = await api(url, key, "POST", `${base}/services`, {
      name,
      url: `${upstreamUrl}/bench-${name}/mcp`,
      payloadCapture: false,
    });
    const { data: indexed } = await api(url, key, "POST", `${base}/services/${String(created.uid)}/refresh`);
    const tool = (indexed.tools as { uid: string; upstreamName: string }[]).find(
      (t) => t.upstreamName === "search_release_notes",
    );
    if (!tool) throw new Error(`service ${name} has no search_release_notes tool`);
    uids[name] = tool.uid;
  }
  // Public names are settled once every service exists.
  const { data: listed } = await api(url, key, "GET", `${base}/tools?limit=100`);
  const items = listed.items as { uid: string; name: string | null }[];
  const names: Record<string, string> = {};
  const compiledBytes: Record<string, unknown> = {};
  for (const { name, adapter } of services) {
    names[name] = items.find((t) => t.uid === uids[name])?.name ?? "";
    if (!adapter) continue;
    const hook = `${base}/tools/${uids[name] ?? ""}/hook`;
    const { headers } = await api(url, key, "GET", hook);
    await api(
      url,
      key,
      "PUT",
      `${hook}/draft`,
      { source: adapter.source, config: { prefix: "" }, note: "bench" },
      { "if-match": headers.get("etag") ?? "" },
    );
    const { data: compiled } = await api(url, key, "POST", `${hook}/compile`);
    compiledBytes[name] = compiled.compiledBytes ?? null;
    await api(url, key, "POST", `${hook}/test`, adapter.test);
    await api(url, key, "POST", `${hook}/deployments`, { version: 1, channel: "active" });
  }
  return { uid: String(ws.uid), key, names, compiledBytes };
}
