// Sends a provider-shaped body to the workspace's configured provider with the
// workspace's key (read from a secret here, after every hook ran — never
// visible to hooks) and hands the response back unchanged, streaming or not.
import type { ProviderName } from "../config/providers";
import type { WorkspaceConfig } from "../config/schema";
import type { JsonObject } from "../json";
import { workspaceSecret } from "../services/credentials";

/** The path each provider's API serves, appended to the configured base URL (SDK convention). */
export const PROVIDER_PATHS: Record<ProviderName, string> = {
  openai: "/chat/completions",
  anthropic: "/v1/messages",
};
/** Sent to Anthropic when the client named no version. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

export type ForwardOutcome =
  | { kind: "response"; response: Response }
  | { kind: "not_configured"; message: string }
  | { kind: "unreachable"; message: string };

/** Response headers that describe the hop, not the answer: dropped when relaying. */
const HOP_HEADERS = ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"];

export async function forwardToProvider(
  env: Pick<Env, "DB" | "RAYRUN_BOOTSTRAP_KEY">,
  workspaceUid: string,
  config: WorkspaceConfig,
  provider: ProviderName,
  body: JsonObject,
  clientHeaders: Headers | null,
  signal?: AbortSignal,
): Promise<ForwardOutcome> {
  const settings = config.providers?.[provider];
  if (settings === undefined) {
    return { kind: "not_configured", message: `The workspace config names no ${provider} provider.` };
  }
  let key: string | null = null;
  if (settings.apiKeySecret !== undefined) {
    key = await workspaceSecret(env.DB, workspaceUid, settings.apiKeySecret, env.RAYRUN_BOOTSTRAP_KEY);
    if (key === null) {
      return {
        kind: "not_configured",
        message: `The ${provider} provider needs the workspace secret ${settings.apiKeySecret}, which is not set.`,
      };
    }
  }
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  if (provider === "openai") {
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
  } else {
    if (key !== null) headers.set("x-api-key", key);
    headers.set("anthropic-version", clientHeaders?.get("anthropic-version") ?? DEFAULT_ANTHROPIC_VERSION);
    const beta = clientHeaders?.get("anthropic-beta");
    if (beta) headers.set("anthropic-beta", beta);
  }
  const url = settings.baseUrl.replace(/\/+$/, "") + PROVIDER_PATHS[provider];
  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return {
      kind: "unreachable",
      message: `The ${provider} provider could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const relayed = new Headers(upstream.headers);
  for (const name of HOP_HEADERS) relayed.delete(name);
  return {
    kind: "response",
    response: new Response(upstream.body, {
      status: upstream.status,
      statusText: upstream.statusText,
      headers: relayed,
    }),
  };
}
