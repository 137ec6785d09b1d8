// Per-key request rates on /mcp and /llm, counted by the Workers Rate Limiting
// bindings (simulated by workerd here): at the rate every request is served,
// one more is 429 with Retry-After in the route's own error shape; other keys
// and other workspaces keep their own count.
import OpenAI, { RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { BOOTSTRAP_KEY, call, expectProblem } from "../../../helpers/api";
import { createKey, gatewayFetch, rawMcp, setup as setupMcp } from "../harness";
import {
  fakeProviders,
  hook,
  openaiBody,
  post,
  putConfig,
  received,
  setup as setupLlm,
} from "../llm-harness";

const RATE = 60;
const MINUTE = 60_000;
const window = () => Math.floor(Date.now() / MINUTE);

/**
 * Sends requests until the first refusal and returns how many were served.
 * The simulated limiter's windows are aligned to the wall clock, so a count
 * that straddled a window boundary is run again (then in a fresh window).
 */
async function servedBeforeRefusal(
  send: () => Promise<Response>,
): Promise<{ served: number; refused: Response }> {
  for (;;) {
    const start = window();
    let served = 0;
    for (;;) {
      const res = await send();
      if (res.status === 429) {
        if (window() === start) return { served, refused: res };
        break;
      }
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      served++;
      if (served > RATE + 1) throw new Error("the rate was never enforced");
    }
  }
}

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

describe("per-key request rates", () => {
  it(`/mcp: ${RATE} requests a minute are served, the next is 429 with Retry-After as JSON-RPC; other keys and workspaces keep their own count`, async () => {
    const g = await setupMcp();
    await putConfig(g.ws, { rateLimits: { mcpPerMinute: RATE } });
    const { served, refused } = await servedBeforeRefusal(() => rawMcp(g, ping));
    expect(served).toBe(RATE);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringContaining(`${RATE} requests per minute`) },
    });
    // A tool call from the same key is refused before it reaches the upstream (unless the window just rolled).
    const refusedIn = window();
    const toolCall = await rawMcp(g, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    });
    const stream = await gatewayFetch(g)(`http://gateway.test/mcp/${g.ws}`, {
      headers: {
        authorization: `Bearer ${g.callKey}`,
        accept: "text/event-stream",
        "mcp-session-id": "g1.session",
      },
    });
    const refusedAgain = window() === refusedIn;
    expect(toolCall.status).toBe(refusedAgain ? 429 : 200);
    expect(await g.upstream.calls()).toHaveLength(refusedAgain ? 0 : 1);
    // The standalone stream counts too (405 here, had it been served: the upstream is stateless).
    expect(stream.status).toBe(refusedAgain ? 429 : 405);

    const other = await createKey(g.ws, { scopes: ["tools:call"], actor: "other" });
    expect((await rawMcp(g, ping, { key: other.key })).status).toBe(200);
    const elsewhere = await setupMcp();
    expect((await rawMcp(elsewhere, ping, { key: BOOTSTRAP_KEY })).status).toBe(200);
    expect((await rawMcp(g, ping, { key: BOOTSTRAP_KEY })).status).toBe(200);
  });

  it(`/llm: ${RATE} requests a minute reach the provider, the next is 429 rate_limited in the provider's shape`, async () => {
    const g = await setupLlm();
    await putConfig(g.ws, {
      providers: fakeProviders(g.provider),
      pre_llm_hook: hook(),
      rateLimits: { llmPerMinute: RATE },
    });
    const before = (await received(g)).length;
    const { served, refused } = await servedBeforeRefusal(() => post(g, "openai", openaiBody));
    expect(served).toBe(RATE);
    const problem = await expectProblem(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(problem.error).toMatchObject({
      code: "rate_limited",
      message: expect.stringContaining("per minute"),
    });
    expect((await received(g)).length - before).toBeGreaterThanOrEqual(RATE);

    const client = new OpenAI({
      apiKey: g.callKey,
      baseURL: `http://gateway.test/llm/${g.ws}/openai/v1`,
      fetch: gatewayFetch(g),
      maxRetries: 0,
    });
    const error = await client.chat.completions.create(openaiBody).catch((e: unknown) => e);
    if (error instanceof Error && !(error instanceof RateLimitError)) throw error;
  }, 120_000);

  it("the rates a config may choose are the tiers in /v1/limits; defaults are filled in; another value is refused", async () => {
    const limits = await (await call("GET", "/v1/limits")).json<typeof LIMITS>();
    expect(limits.rateLimitTiersPerMinute).toEqual([60, 600, 6000, 60000]);
    const g = await setupMcp();
    const config = await (
      await call("GET", `/v1/workspaces/${g.ws}/config`)
    ).json<{
      config: { rateLimits: unknown };
    }>();
    expect(config.config.rateLimits).toEqual({
      mcpPerMinute: LIMITS.mcpRequestsPerMinute,
      llmPerMinute: LIMITS.llmRequestsPerMinute,
    });
    const etag = (await call("GET", `/v1/workspaces/${g.ws}/config`)).headers.get("etag") ?? "";
    for (const rate of [61, 0, 120_000, "600"]) {
      const res = await call("PUT", `/v1/workspaces/${g.ws}/config`, {
        body: { rateLimits: { mcpPerMinute: rate } },
        headers: { "if-match": etag },
      });
      const problem = await expectProblem(res, 400, "invalid_request");
      expect(JSON.stringify(problem.errors)).toContain("rateLimits");
    }
  });
});
