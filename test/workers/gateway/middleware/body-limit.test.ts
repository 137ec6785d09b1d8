// A body over the request limit on /llm and /mcp says how large it is beside
// the limit, in the same words the API uses.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { gateway } from "../../../../workers/gateway/app";
import { setup } from "../harness";

const SIZE = 612 * 1024;
const DETAIL = "The body is 612 KiB; the limit is 512 KiB.";

const post = (url: string, key: string, body: string) =>
  new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
      "content-length": String(body.length),
    },
    body,
  });

/** JSON of exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) => `{"s":"${"a".repeat(bytes - '{"s":""}'.length)}"}`;

describe("request body limit", () => {
  it("/llm names the body's size and the limit", async () => {
    const g = await setup();
    const url = `http://gateway.test/llm/${g.ws}/openai/v1/chat/completions`;
    const res = await gateway.fetch(post(url, g.callKey, jsonOfSize(SIZE)), env, g.ctx);
    expect(res.status).toBe(413);
    const body = await res.json<{ code: string; detail: string; size: number }>();
    expect(body).toMatchObject({ code: "payload_too_large", detail: DETAIL, size: SIZE });
  });

  it("/mcp names them in its JSON-RPC error", async () => {
    const g = await setup();
    const res = await gateway.fetch(
      post(`http://gateway.test/mcp/${g.ws}`, g.callKey, jsonOfSize(SIZE)),
      env,
      g.ctx,
    );
    expect(res.status).toBe(413);
    const body = await res.json<{ error: { message: string } }>();
    expect(body.error.message).toBe(DETAIL);
  });
});
