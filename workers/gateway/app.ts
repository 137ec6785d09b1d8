import { Hono } from "hono";
import { clearValidatorCache } from "../../shared/contract/validator";
import { clearFileRevisionCache } from "../../shared/deploy/deployed-file";
import { notFoundHandler } from "../../shared/http/not-found";
import { problemResponse } from "../../shared/http/problem";
import { clearConfigCopies } from "../../shared/lease/config";
import { clearLeases } from "../../shared/lease/view";
import { clearPluginCache } from "../../shared/plugins/call-plugins";
import { homeRttMs, simStats } from "../../shared/sim/distance";
import { BENCH_RELAY_PATH, benchRelay } from "./bench-relay";
import { clearCatalogCache } from "./caches/catalog-cache";
import { clearRevisionCache } from "./caches/revision-cache";
import { llmRoutes } from "./llm/route";
import { mcpRoutes } from "./mcp/route";
import { clearPrincipalCache } from "./middleware/auth";
import { clearUpstreamSessions } from "./upstream/upstream-session";

// The data plane. It imports the sandbox and hook contracts, never the compiler:
// `npm run check:gateway` fails the build if esbuild reaches this bundle.
export const gateway = new Hono<{ Bindings: Env }>();

/**
 * What a new isolate would not hold yet, by name: each cache whose miss can cost a trip to the
 * workspace's home or to an upstream. Left out, with no way to clear them: plugin tool definitions
 * (a D1 read per plugin revision), known workspaces (the platform key only), derived secret keys
 * and sandbox images (CPU only).
 */
const ISOLATE_CACHES: Readonly<Record<string, () => void>> = {
  leases: clearLeases,
  configCopies: clearConfigCopies,
  catalogs: clearCatalogCache,
  resolvedKeys: clearPrincipalCache,
  revisions: clearRevisionCache,
  fileRevisions: clearFileRevisionCache,
  pluginLists: clearPluginCache,
  upstreamSessions: clearUpstreamSessions,
  validators: clearValidatorCache,
};

// Dev-only, first so that it costs nothing otherwise: with SIM_HOME_RTT_MS set, this isolate's
// counters, and `POST /__sim/forget`, which empties its caches so that its next call is a cold
// isolate's first (docs/architecture.md, "Distance, simulated"); unset, the 404 any unknown path gets.
gateway.all("/__sim/*", (c) => {
  if (c.req.method === "POST" && c.req.path === "/__sim/forget" && homeRttMs(c.env) !== null) {
    for (const clear of Object.values(ISOLATE_CACHES)) clear();
    return c.json({ forgotten: Object.keys(ISOLATE_CACHES) });
  }
  const stats = c.req.method === "GET" && c.req.path === "/__sim/stats" ? simStats("gateway", c.env) : null;
  return stats === null ? c.notFound() : c.json(stats);
});

// Before /mcp/:ws, which would read "_bench" as a workspace (uids start with "ws_").
gateway.post(BENCH_RELAY_PATH, benchRelay);

// MCP over Streamable HTTP: messages, the standalone stream, and no sessions to end.
gateway.route("/", mcpRoutes);

// The LLM proxy: OpenAI- and Anthropic-compatible endpoints with the request hook in front.
gateway.route("/", llmRoutes);

gateway.notFound(notFoundHandler(gateway));

gateway.onError((error) => {
  console.error("unhandled gateway error", error);
  return problemResponse({ code: "internal_error", detail: "Something went wrong on our side." });
});
