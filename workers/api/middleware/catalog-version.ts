// Bumps the workspace's catalog version after any write to what the gateway
// caches about its tools (catalog-cache.ts): services, tools (review, settings),
// access profiles and secrets; and the config, whose `plugins` order decides
// the plugin list the tool path keeps per isolate (call-plugins.ts). One middleware rather than a call in each
// handler, so a new writer in these families cannot forget it. Hook lifecycle
// routes under `/tools/{tool}/hook` change pointers, not the catalog.
import { workspaceObject } from "../../../durable-objects/workspace/rpc";
import { createMiddleware } from "hono/factory";
import type { ApiEnv } from "../types";

const CATALOG_FAMILIES = new Set(["services", "tools", "access-profiles", "secrets", "config"]);

/** `/v1/workspaces/{ws}/{family}/…` → the workspace when the path writes catalog data. */
function catalogWorkspace(method: string, path: string): string | null {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return null;
  const [, v1, workspaces, ws, family, , sub] = path.split("/");
  if (v1 !== "v1" || workspaces !== "workspaces" || !ws || !family) return null;
  if (!CATALOG_FAMILIES.has(family)) return null;
  if (family === "tools" && sub === "hook") return null;
  try {
    return decodeURIComponent(ws);
  } catch {
    // Not a workspace uid (malformed percent-encoding): the route refuses it, nothing to bump.
    return null;
  }
}

export const catalogVersion = createMiddleware<ApiEnv>(async (c, next) => {
  const ws = catalogWorkspace(c.req.method, c.req.path);
  await next();
  // Refusals (4xx) change nothing stored; a 5xx may have written part of its change.
  if (ws !== null && (c.res.status < 400 || c.res.status >= 500)) {
    await workspaceObject(c.env, ws).catalogChanged();
  }
});
