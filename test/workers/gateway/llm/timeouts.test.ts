// Bounded provider calls: a provider that sends no headers in time is 504
// provider_timeout in its own error shape; a stream that goes quiet ends with
// the provider's error event, which the official SDKs raise. Both are set per
// provider in the workspace config, within bounds.
import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { APIError as OpenAIAPIError } from "openai";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../shared/limits";
import { call, expectProblem } from "../../../helpers/api";
import {
  anthropic,
  anthropicBody,
  fakeProviders,
  hook,
  type Llm,
  openai,
  openaiBody,
  post,
  putConfig,
  received,
  setup,
} from "../llm-harness";

const slowNext = (
  g: Llm,
  slowness: { headersAfterMs?: number; stallAfterEvents?: number; stallMs?: number },
) => fetch(`http://provider.test/${g.provider}/_slow`, { method: "POST", body: JSON.stringify(slowness) });

const providers = (g: Pick<Llm, "provider">, timeouts: Record<string, number>) =>
  fakeProviders(g.provider, { timeouts });

async function withTimeouts(timeouts: Record<string, number>): Promise<Llm> {
  const g = await setup();
  await putConfig(g.ws, { providers: providers(g, timeouts), pre_llm_hook: hook() });
  return g;
}

describe("provider timeouts", () => {
  it("no response headers within firstByteMs is 504 provider_timeout in the provider's shape, for both routes", async () => {
    const g = await withTimeouts({ firstByteMs: 200 });
    for (const provider of ["openai", "anthropic"] as const) {
      await slowNext(g, { headersAfterMs: 1500 });
      const res = await post(g, provider, provider === "openai" ? openaiBody : anthropicBody);
      const problem = await expectProblem(res, 504, "provider_timeout");
      expect(problem.error).toMatchObject({
        code: "provider_timeout",
        message: expect.stringContaining("200 ms"),
      });
      expect(res.headers.get("x-rayrun-request-id")).toBe(problem.requestId);
    }
    // A provider as fast as the bound allows is answered.
    const ok = await post(g, "openai", openaiBody);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it("the official SDKs see the timeout as a 504 APIError", async () => {
    const g = await withTimeouts({ firstByteMs: 200 });
    await slowNext(g, { headersAfterMs: 1500 });
    const fromOpenai = await openai(g)
      .chat.completions.create(openaiBody)
      .catch((e: unknown) => e);
    expect(fromOpenai).toBeInstanceOf(OpenAIAPIError);
    expect(fromOpenai).toMatchObject({ status: 504, code: "provider_timeout" });
    await slowNext(g, { headersAfterMs: 1500 });
    const fromAnthropic = await anthropic(g)
      .messages.create(anthropicBody)
      .catch((e: unknown) => e);
    expect(fromAnthropic).toBeInstanceOf(AnthropicAPIError);
    expect(fromAnthropic).toMatchObject({ status: 504 });
  });

  it("a stream quiet for idleMs ends with the provider's error event, which each SDK raises", async () => {
    const g = await withTimeouts({ idleMs: 200 });
    await slowNext(g, { stallAfterEvents: 2, stallMs: 1500 });
    const chunks: unknown[] = [];
    const fromOpenai = await (async () => {
      const stream = await openai(g).chat.completions.create({ ...openaiBody, stream: true });
      for await (const chunk of stream) chunks.push(chunk);
    })().catch((e: unknown) => e);
    expect(chunks.length).toBeGreaterThan(0);
    expect(fromOpenai).toBeInstanceOf(OpenAIAPIError);
    expect(String(fromOpenai)).toContain("sent nothing for 200 ms");

    await slowNext(g, { stallAfterEvents: 2, stallMs: 1500 });
    const fromAnthropic = await (async () => {
      const stream = await anthropic(g).messages.create({ ...anthropicBody, stream: true });
      for await (const event of stream) chunks.push(event);
    })().catch((e: unknown) => e);
    expect(fromAnthropic).toBeInstanceOf(AnthropicAPIError);
    expect(String(fromAnthropic)).toContain("sent nothing for 200 ms");
  });

  it("a stream with gaps shorter than idleMs is relayed whole", async () => {
    const g = await withTimeouts({ idleMs: 1000 });
    await slowNext(g, { stallAfterEvents: 2, stallMs: 200 });
    const stream = await openai(g).chat.completions.create({ ...openaiBody, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toContain("echo:");
    expect((await received(g)).length).toBe(1);
  });

  it(`limit: timeouts are ${LIMITS.timeoutMinMs}–${LIMITS.providerTimeoutMaxMs} ms; one outside is refused and nothing is stored`, async () => {
    const g = await setup();
    const config = async () => (await call("GET", `/v1/workspaces/${g.ws}/config`)).text();
    for (const ms of [LIMITS.timeoutMinMs, LIMITS.providerTimeoutMaxMs]) {
      await putConfig(g.ws, { providers: providers(g, { firstByteMs: ms, idleMs: ms }) });
    }
    const before = await config();
    for (const ms of [LIMITS.timeoutMinMs - 1, LIMITS.providerTimeoutMaxMs + 1, 1.5]) {
      for (const field of ["firstByteMs", "idleMs"]) {
        const etag = (await call("GET", `/v1/workspaces/${g.ws}/config`)).headers.get("etag") ?? "";
        const res = await call("PUT", `/v1/workspaces/${g.ws}/config`, {
          body: { providers: providers(g, { [field]: ms }) },
          headers: { "if-match": etag },
        });
        const problem = await expectProblem(res, 400, "invalid_request");
        expect(JSON.stringify(problem.errors)).toContain(field);
      }
    }
    expect(await config()).toBe(before);
  });
});
