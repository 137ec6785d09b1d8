// A baseline for `npm run bench:gateway`: this Worker, reached the way the MCP endpoint is, forwarding
// the request to one fixed upstream URL and doing nothing else. Locally every
// outbound fetch of a Worker also passes an interceptor Worker that wrangler
// adds, which the upstream called directly never pays; with this case the
// gateway's own cost is read as (b) − (r) on the same path.
//
// Off unless the `BENCH_RELAY_URL` var is set: the gateway's config declares
// it empty and only the bench sets it (in an env file), and without it the
// route answers 404. It only ever reaches that one URL, so it cannot be used
// as an open relay. (`Env` comes from the api Worker's config, which does not
// have this var, hence the untyped read.)
import type { Context } from "hono";
import { problemResponse } from "../../shared/http/problem";
import { PROTOCOL_HEADER } from "./wire/headers";

export const BENCH_RELAY_PATH = "/mcp/_bench/relay";

/** Request headers the relay passes on: what an MCP tools/call needs, nothing else. */
const FORWARDED = ["content-type", "accept", PROTOCOL_HEADER] as const;

export async function benchRelay(c: Context<{ Bindings: Env }>): Promise<Response> {
  const target: unknown = Reflect.get(c.env, "BENCH_RELAY_URL");
  if (typeof target !== "string" || target === "") {
    return problemResponse({ code: "not_found", detail: `No route for POST ${BENCH_RELAY_PATH}.` });
  }
  const headers = new Headers();
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  const upstream = await fetch(target, { method: "POST", headers, body: c.req.raw.body });
  return new Response(upstream.body, {
    status: upstream.status,
    headers: { "content-type": upstream.headers.get("content-type") ?? "application/json" },
  });
}
