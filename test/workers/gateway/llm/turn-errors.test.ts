// Turn errors on the proxy routes: every request hook failure answers in the
// provider's error shape with error.type "turn_error" and its request_hook_*
// code, at a 4xx the official SDKs do not resend; the record's metadata says
// turnError whatever the detail policy keeps. A client that disconnects while
// the hook awaits a slow host call stops the hook, and nothing is forwarded.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { json } from "../../../helpers/api";
import { gatewayFetch } from "../harness";
import { chat, hookGateway, hookRecords, providerCalls, type HookGateway } from "../llm-hook-harness";

const HOOKS = `
export function explode() { throw new Error("the policy store is down"); }
export function wrapped({ request, loop }) { return { request, loop }; }
export async function slowModel({ request }) {
  const answer = await rayrun.model({ provider: "openai", request: { model: "gpt-test", messages: [{ role: "user", content: "rag" }] } });
  return { ...request, system: "rag: " + answer.choices[0].message.content };
}`;

/** The hook `fn` of the file above, with `hook` fields (timeout_ms) and workspace `config`. */
const setup = (fn: string, config: Record<string, unknown> = {}, hook: Record<string, unknown> = {}) =>
  hookGateway(
    { "lib/request-policy.ts": HOOKS },
    { pre_llm_hook: { source: `lib/request-policy.ts:${fn}`, scope: "all", ...hook }, ...config },
  );

const slowNext = (g: HookGateway, ms: number) =>
  fetch(`http://provider.test/${g.providerId}/_slow`, {
    method: "POST",
    body: JSON.stringify({ headersAfterMs: ms }),
  });

/** Counts the requests an SDK makes (with its default retries left on). */
function counting(g: HookGateway) {
  const seen = { requests: 0 };
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    seen.requests++;
    return gatewayFetch(g)(input, init);
  };
  return { seen, fetch };
}

describe("turn errors", () => {
  it("every failure on both routes carries error.type turn_error and its request_hook_* code", async () => {
    for (const [fn, hookCode] of [
      ["explode", "request_hook_error"],
      ["wrapped", "request_hook_invalid_return"],
      ["missing", "request_hook_function_missing"],
    ] as const) {
      const g = await setup(fn);
      for (const provider of ["openai", "anthropic"] as const) {
        const res = await chat(g, {
          provider,
          body: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
        });
        expect(res.headers.get("x-should-retry")).toBe("false");
        expect(await json(res, 422)).toMatchObject({
          code: "request_hook_failed",
          hookCode,
          error: { type: "turn_error", code: hookCode },
        });
      }
      expect(await providerCalls(g)).toEqual([]);
    }
  });

  it("the official SDKs, retries left on, send a failing request exactly once", async () => {
    const g = await setup("explode");
    const o = counting(g);
    const openai = new OpenAI({
      apiKey: g.callKey,
      baseURL: `http://gateway.test/llm/${g.ws}/openai/v1`,
      fetch: o.fetch,
    });
    const openaiError = await openai.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(openaiError).toMatchObject({ status: 422, type: "turn_error", code: "request_hook_error" });
    expect(o.seen.requests).toBe(1);

    const a = counting(g);
    const anthropic = new Anthropic({
      apiKey: g.callKey,
      baseURL: `http://gateway.test/llm/${g.ws}/anthropic`,
      fetch: a.fetch,
    });
    const anthropicError = await anthropic.messages
      .create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(anthropicError).toMatchObject({ status: 422, error: { error: { type: "turn_error" } } });
    expect(a.seen.requests).toBe(1);
  });

  it("the record's metadata has turnError: true even when the detail policy keeps no details", async () => {
    const g = await setup("explode", { detailPolicy: "none" });
    const res = await chat(g);
    expect(res.status).toBe(422);
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([
      { outcome: "error", code: "request_hook_error", turnError: true, attempt: 1 },
    ]);
    expect(records[0]?.details ?? null).toBeNull();
  });
});

describe("cancellation stops the hook", () => {
  it("a client that disconnects while the hook awaits a slow host call: cancelled, and nothing is forwarded", async () => {
    const g = await setup("slowModel");
    await slowNext(g, 3000);
    const controller = new AbortController();
    const started = Date.now();
    const answered = chat(g, { signal: controller.signal });
    // Disconnects once the hook's model call has reached the provider.
    for (let i = 0; i < 100 && (await providerCalls(g)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    const res = await answered;
    expect(Date.now() - started).toBeLessThan(2500);
    const problem = await json(res, 422);
    expect(problem).toMatchObject({ hookCode: "request_hook_cancelled", error: { type: "turn_error" } });
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([
      { outcome: "cancelled", code: "request_hook_cancelled", turnError: true },
    ]);
    // The hook's own model call was dispatched; the request itself never was.
    const calls = await providerCalls(g);
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0]?.body)).toContain("rag");
  });
});

describe("structural recovery", () => {
  it("recovery.structuralRetries reruns a host-call timeout in a fresh sandbox, each retry recorded", async () => {
    const g = await setup("slowModel", { recovery: { structuralRetries: 1 } }, { timeout_ms: 400 });
    await slowNext(g, 1500);
    const res = await chat(g);
    expect(res.status).toBe(200);
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([
      { outcome: "turn_error_retry", code: "request_hook_timeout", attempt: 1, turnError: true },
      { outcome: "continue", code: null, attempt: 2, turnError: false },
    ]);
  });

  it("without the setting the same timeout fails the request, once", async () => {
    const g = await setup("slowModel", {}, { timeout_ms: 400 });
    await slowNext(g, 1500);
    const res = await chat(g);
    expect(await json(res, 422)).toMatchObject({ hookCode: "request_hook_timeout" });
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([{ outcome: "error", code: "request_hook_timeout", attempt: 1 }]);
  });

  it("throws and invalid returns repeat, so they are never retried", async () => {
    for (const [fn, hookCode] of [
      ["explode", "request_hook_error"],
      ["wrapped", "request_hook_invalid_return"],
    ] as const) {
      const g = await setup(fn, { recovery: { structuralRetries: 2 } });
      const res = await chat(g);
      expect(await json(res, 422)).toMatchObject({ hookCode });
      const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
      expect(records).toMatchObject([{ outcome: "error", code: hookCode, attempt: 1 }]);
    }
  });
});
