// Sends a provider-shaped body to the workspace's configured provider with the
// workspace's key (read from a secret here, after every hook ran — never
// visible to hooks) and hands the response back unchanged, streaming or not.
import type { ProviderName } from "../config/providers";
import type { WorkspaceConfig } from "../config/schema";
import type { JsonObject } from "../json";
import { LIMITS } from "../limits";
import { secretAt } from "../lease/config";
import { workspaceSecret } from "../secrets/credentials";
import { withIdleTimeout } from "./idle-stream";

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
  | { kind: "unreachable"; message: string }
  /** No response headers within the first-byte bound (nothing was relayed). */
  | { kind: "timeout"; message: string };

/** Response headers that describe the hop, not the answer: dropped when relaying. */
const HOP_HEADERS = ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"];

/**
 * `catalogVersion`, when the caller holds a lease, lets the provider key come
 * from the isolate's copy at that version instead of a D1 read per call.
 */
export async function forwardToProvider(
  env: Pick<Env, "DB" | "RAYRUN_BOOTSTRAP_KEY">,
  workspaceUid: string,
  config: WorkspaceConfig,
  provider: ProviderName,
  body: JsonObject,
  clientHeaders: Headers | null,
  signal?: AbortSignal,
  catalogVersion?: number,
): Promise<ForwardOutcome> {
  const settings = config.providers?.[provider];
  if (settings === undefined) {
    return { kind: "not_configured", message: `The workspace config names no ${provider} provider.` };
  }
  let key: string | null = null;
  if (settings.apiKeySecret !== undefined) {
    key =
      catalogVersion === undefined
        ? await workspaceSecret(env.DB, workspaceUid, settings.apiKeySecret, env.RAYRUN_BOOTSTRAP_KEY)
        : await secretAt(env, env.RAYRUN_BOOTSTRAP_KEY, workspaceUid, catalogVersion, settings.apiKeySecret);
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
  const firstByteMs = settings.timeouts?.firstByteMs ?? LIMITS.providerFirstByteMs;
  const idleMs = settings.timeouts?.idleMs ?? LIMITS.providerIdleMs;
  // A Worker's fetch exposes no separate connect phase: a refused connection
  // fails at once, and everything up to the response headers is this one bound.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), firstByteMs);
  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
    });
  } catch (error) {
    if (deadline.signal.aborted) {
      console.warn("provider timeout", { provider, workspaceUid, phase: "first byte", ms: firstByteMs });
      return {
        kind: "timeout",
        message: `The ${provider} provider sent no response within ${firstByteMs} ms.`,
      };
    }
    return {
      kind: "unreachable",
      message: `The ${provider} provider could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    clearTimeout(timer);
  }
  const relayed = new Headers(upstream.headers);
  for (const name of HOP_HEADERS) relayed.delete(name);
  const sse = (relayed.get("content-type") ?? "").includes("text/event-stream");
  const onIdle = () => {
    console.warn("provider timeout", { provider, workspaceUid, phase: "idle", ms: idleMs, stream: sse });
    return sse ? idleEvent(provider, idleMs) : null;
  };
  return {
    kind: "response",
    response: new Response(upstream.body && withIdleTimeout(upstream.body, idleMs, onIdle), {
      status: upstream.status,
      statusText: upstream.statusText,
      headers: relayed,
    }),
  };
}

/**
 * The event that ends a stream whose provider went quiet, in the provider's
 * own error-event shape, so the official SDKs raise an error instead of
 * treating the cut stream as a complete answer.
 */
function idleEvent(provider: ProviderName, idleMs: number): Uint8Array {
  const message = `The ${provider} provider sent nothing for ${idleMs} ms; the stream was ended.`;
  const error = { type: "provider_timeout", code: "provider_timeout", message };
  const event =
    provider === "anthropic"
      ? `event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`
      : `data: ${JSON.stringify({ error })}\n\n`;
  return new TextEncoder().encode(event);
}
