// Per-key request rates on `/mcp` and `/llm`, counted by Workers Rate Limiting
// bindings. A binding's limit is fixed in the wrangler config, so each rate a
// workspace may choose has its own binding; the counting key names the route,
// the workspace and the API key, so the platform key is counted per workspace.
import type { RateTier } from "../../../shared/config/schema";
import { rpcRefusal, SERVER_ERROR } from "../wire/rpc-error";

type Route = "mcp" | "llm";

export type RateEnv = Pick<Env, "RATE_LIMIT_60" | "RATE_LIMIT_600" | "RATE_LIMIT_6000" | "RATE_LIMIT_60000">;

/** The binding's window: a refused client may retry after at most this long. */
export const RATE_WINDOW_SECONDS = 60;

const BINDINGS = {
  60: "RATE_LIMIT_60",
  600: "RATE_LIMIT_600",
  6000: "RATE_LIMIT_6000",
  60000: "RATE_LIMIT_60000",
} as const satisfies Record<RateTier, keyof RateEnv>;

/** Counts one request; false when the key is over its rate for this route. */
export async function withinRate(
  env: RateEnv,
  route: Route,
  perMinute: RateTier,
  workspaceUid: string,
  keyId: string,
): Promise<boolean> {
  const { success } = await env[BINDINGS[perMinute]].limit({ key: `${route}:${workspaceUid}:${keyId}` });
  return success;
}

export const rateLimitedDetail = (perMinute: RateTier): string =>
  `This key may send ${perMinute} requests per minute here; retry after ${RATE_WINDOW_SECONDS} s.`;

/** The JSON-RPC 429 for a key over its MCP rate, or null while it is within it (POST and GET count alike). */
export async function mcpRateRefusal(
  env: RateEnv,
  perMinute: RateTier,
  workspaceUid: string,
  keyId: string,
): Promise<Response | null> {
  if (await withinRate(env, "mcp", perMinute, workspaceUid, keyId)) return null;
  return rpcRefusal(429, SERVER_ERROR, rateLimitedDetail(perMinute), {
    "retry-after": String(RATE_WINDOW_SECONDS),
  });
}
