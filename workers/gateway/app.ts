import { Hono, type Context } from "hono";
import { clearValidatorCache } from "../../shared/contract/validator";
import { clearFileRevisionCache } from "../../shared/deploy/deployed-file";
import { notFoundHandler } from "../../shared/http/not-found";
import { problemResponse } from "../../shared/http/problem";
import { clearConfigCopies } from "../../shared/lease/config";
import { clearLeases } from "../../shared/lease/view";
import { clearPluginCache } from "../../shared/plugins/call-plugins";
import { homeRttMs, simStats } from "../../shared/sim/distance";
import { admit, clearPrincipalCache } from "./auth";
import { BENCH_RELAY_PATH, benchRelay } from "./bench-relay";
import { clearCatalogCache } from "./caches/catalog-cache";
import { clearRevisionCache } from "./caches/revision-cache";
import { llmRoutes } from "./llm";
import { serveMcp } from "./mcp/endpoint";
import { allowedHosts, hostRefusal } from "./mcp/host";
import { listenMcp } from "./mcp/listen";
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

/** The host names /mcp answers under; read by name: the generated Env holds only the API's vars. */
function mcpHosts(env: Env): ReadonlySet<string> {
  const hosts: unknown = Reflect.get(env, "MCP_ALLOWED_HOSTS");
  return allowedHosts(typeof hosts === "string" ? hosts : undefined);
}

// MCP over Streamable HTTP. The gateway keeps no session state: the session ids it issues carry
// what later requests need. POST carries messages; GET is the client's standalone stream (what its
// stateful upstreams send outside any request). Both check the host names, then the key.
const mcpRoute =
  (serve: typeof serveMcp | typeof listenMcp) =>
  async (c: Context<{ Bindings: Env }, "/mcp/:ws">): Promise<Response> => {
    const refused = hostRefusal(c.req.raw, mcpHosts(c.env));
    if (refused !== null) return problemResponse(refused);
    const ws = c.req.param("ws");
    const admission = await admit(c.env, c.req.header("authorization"), ws, (p) =>
      c.executionCtx.waitUntil(p),
    );
    if (!admission.ok) return problemResponse(admission.problem);
    return serve(c.req.raw, c.env, c.executionCtx, ws, admission.admitted);
  };

gateway.post("/mcp/:ws", mcpRoute(serveMcp));
gateway.get("/mcp/:ws", mcpRoute(listenMcp));

gateway.delete("/mcp/:ws", () =>
  problemResponse({
    code: "method_not_allowed",
    detail: "Sessions of this MCP endpoint hold no state to end: send JSON-RPC messages with POST.",
    headers: { allow: "GET, POST" },
  }),
);

// The LLM proxy: OpenAI- and Anthropic-compatible endpoints with the request hook in front.
gateway.route("/", llmRoutes);

gateway.notFound(notFoundHandler(gateway));

gateway.onError((error) => {
  console.error("unhandled gateway error", error);
  return problemResponse({ code: "internal_error", detail: "Something went wrong on our side." });
});
