// DNS-rebinding protection for the MCP endpoint. A page on another site can
// point its own host name at a gateway listening on this machine (`wrangler
// dev`, `npm start`) and call it as same-origin; checking the Host and Origin
// a request names against the host names the gateway is served under stops
// that. Deployed on Cloudflare, requests reach the Worker only through its own
// routes, so the list is empty there and nothing is checked; the local dev
// server sets it to the loopback names.
import { createMiddleware } from "hono/factory";
import { problemResponse, type Problem } from "../../../shared/http/problem";

/** Host names (no ports) from a comma-separated list; empty: no check. */
export function allowedHosts(list: string | undefined): ReadonlySet<string> {
  return new Set(
    (list ?? "")
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ""),
  );
}

function hostnameOf(origin: string): string | null {
  try {
    return new URL(origin).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** The refusal of a request whose Host or Origin is not one of `allowed`, or null. */
export function hostRefusal(request: Request, allowed: ReadonlySet<string>): Problem | null {
  if (allowed.size === 0) return null;
  const host = new URL(request.url).hostname.toLowerCase();
  const origin = request.headers.get("origin");
  const originHost = origin === null ? host : hostnameOf(origin);
  if (allowed.has(host) && originHost !== null && allowed.has(originHost)) return null;
  return {
    code: "forbidden_origin",
    detail: "The request's Host or Origin is not a host name this gateway is served under.",
  };
}

/** The host names /mcp answers under; read by name: the generated Env holds only the API's vars. */
function servedHosts(env: Env): ReadonlySet<string> {
  const hosts: unknown = Reflect.get(env, "MCP_ALLOWED_HOSTS");
  return allowedHosts(typeof hosts === "string" ? hosts : undefined);
}

/** Refuses, before the key is even read, a request that names a host the gateway is not served under. */
export const checkHost = createMiddleware<{ Bindings: Env }>(async (c, next) => {
  const refused = hostRefusal(c.req.raw, servedHosts(c.env));
  if (refused !== null) return problemResponse(refused);
  return next();
});
