// A workspace for the request hook's contract tests through the proxy: lib
// files deployed as given, the workspace config as given (providers on its own
// fake provider), an agent key, and the proxy called with a Request the test
// can abort.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { call, createKey, json } from "../../helpers/api";
import { deployLib, hookWorkspace, setConfig, type HookWorkspace } from "../../shared/llm/harness";
import { gatewayFetch } from "./harness";

export interface HookGateway extends HookWorkspace {
  callKey: string;
  ctx: ExecutionContext;
}

/** The fake provider of `w` as both providers. */
export const providersOf = (w: HookWorkspace) => ({
  openai: { baseUrl: `http://provider.test/${w.providerId}/v1` },
  anthropic: { baseUrl: `http://provider.test/${w.providerId}` },
});

/** Deploys `files` (path → source), then writes `config` with the workspace's providers. */
export async function hookGateway(
  files: Record<string, string>,
  config: Record<string, unknown>,
): Promise<HookGateway> {
  const w = await hookWorkspace();
  for (const [path, source] of Object.entries(files)) await deployLib(w, path, source);
  await setConfig(w, { providers: providersOf(w), ...config });
  const { key: callKey } = await createKey(w.ws, ["tools:call"], "agent");
  return { ...w, callKey, ctx: createExecutionContext() };
}

export const CHAT_BODY = {
  model: "gpt-test",
  messages: [{ role: "user", content: "hello there" }],
};

/** A POST to the OpenAI-compatible route (or the Anthropic one). */
export function chat(
  g: HookGateway,
  options: {
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    provider?: "openai" | "anthropic";
  } = {},
): Promise<Response> {
  const path = options.provider === "anthropic" ? "anthropic/v1/messages" : "openai/v1/chat/completions";
  return gatewayFetch(g)(`http://gateway.test/llm/${g.ws}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.callKey}`, ...options.headers },
    body: JSON.stringify(options.body ?? CHAT_BODY),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

export interface HookRecord {
  outcome: string;
  code: string | null;
  loop: string | null;
  requestId: string;
  revisionId: string | null;
  turnError: boolean | null;
  attempt: number | null;
  details?: { error?: string } | null;
}

/** Flushes the proxy's deferred writes, then reads the request hook's records of `requestId`, oldest first. */
export async function hookRecords(g: HookGateway, requestId: string): Promise<HookRecord[]> {
  await waitOnExecutionContext(g.ctx);
  g.ctx = createExecutionContext();
  const page = await json<{ items: HookRecord[] }>(
    await call("GET", `/v1/workspaces/${g.ws}/hooks/logs?kind=request_hook&requestId=${requestId}`),
    200,
  );
  return page.items.toReversed();
}

/** What the workspace's fake provider received so far. */
export async function providerCalls(g: HookGateway): Promise<{ path: string; body: unknown }[]> {
  return (await fetch(`http://provider.test/${g.providerId}/_received`)).json();
}
