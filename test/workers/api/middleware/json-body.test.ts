// JSON request bodies: size limit before anything reads them, media type,
// parseable JSON, nesting depth, then the route's schema — each refusal with
// its own stable code.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LIMITS } from "../../../../shared/limits";
import { jsonBody, limitBody, optionalJsonBody } from "../../../../workers/api/middleware/json-body";
import { expectProblem, send, testApp } from "./app";

const SMALL_LIMIT = 64;

const Thing = z
  .object({ name: z.string().min(1), items: z.array(z.object({ id: z.string() })).optional() })
  .strict();

const app = testApp()
  .post("/things", ...jsonBody(Thing), (c) => c.json({ got: c.req.valid("json") }))
  .post("/small", ...jsonBody(z.unknown(), { maxSize: SMALL_LIMIT }), (c) =>
    c.json({ got: c.req.valid("json") }),
  )
  .post("/any", ...jsonBody(z.unknown()), (c) => c.json({ ok: true }))
  .post("/raw", limitBody(), async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }))
  .post("/action", async (c) =>
    c.json({
      got: await optionalJsonBody(c.req.raw, z.object({ force: z.boolean().default(false) }).strict()),
    }),
  );

const post = (path: string, body: BodyInit | null, contentType: string | null = "application/json") =>
  send(app, path, {
    method: "POST",
    body,
    headers: contentType === null ? {} : { "content-type": contentType },
  });

/** JSON text of exactly `bytes` bytes: a string member padded to size. */
const jsonOfSize = (bytes: number) => {
  const text = `{"s":"${"a".repeat(bytes - '{"s":""}'.length)}"}`;
  expect(new TextEncoder().encode(text).byteLength).toBe(bytes);
  return text;
};

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("jsonBody", () => {
  it("a valid body reaches the handler parsed", async () => {
    const res = await post("/things", JSON.stringify({ name: "a", items: [{ id: "1" }] }));
    expect(await res.json()).toEqual({ got: { name: "a", items: [{ id: "1" }] } });
  });

  it("accepts +json media types and parameters", async () => {
    const res = await post("/things", '{"name":"a"}', "application/merge-patch+json; charset=utf-8");
    expect(res.status).toBe(200);
  });

  it("a body that is not JSON by media type is a 415, whatever it contains", async () => {
    await expectProblem(await post("/things", '{"name":"a"}', "text/plain"), 415, "unsupported_media_type");
    await expectProblem(await post("/things", '{"name":"a"}', null), 415, "unsupported_media_type");
  });

  it("malformed JSON is a 400 invalid_json", async () => {
    for (const body of ["{", "{'name':'a'}", "", "nul", '{"name":"a"} x']) {
      await expectProblem(await post("/things", body), 400, "invalid_json");
    }
  });

  it("a byte order mark before the JSON is ignored, as the JSON RFC lets parsers do; before anything else it is still malformed", async () => {
    // Request.text() decodes UTF-8 without the BOM, so every JSON route reads the text after it.
    const res = await post("/things", '\uFEFF{"name":"a"}');
    expect(await res.json()).toEqual({ got: { name: "a" } });
    await expectProblem(await post("/things", "\uFEFF{"), 400, "invalid_json");
    await expectProblem(await post("/action", '\uFEFF{"force":1'), 400, "invalid_json");
    const action = await post("/action", '\uFEFF{"force":true}');
    expect(await action.json()).toEqual({ got: { force: true } });
  });

  it("a body of the wrong shape is a 400 invalid_request naming each field as a JSON pointer", async () => {
    const body = await expectProblem(
      await post("/things", JSON.stringify({ name: "", items: [{ id: 1 }], extra: true })),
      400,
      "invalid_request",
    );
    const paths = body.errors?.map((e) => e.path) ?? [];
    expect(paths).toEqual(expect.arrayContaining(["/items/0/id", "/name"]));
    // The unknown member is named too.
    expect(JSON.stringify(body.errors)).toContain("extra");
    expect(paths).toHaveLength(3);
  });

  it("nesting exactly to the depth limit is read; one level deeper is a 400 json_too_deep", async () => {
    expect((await post("/any", nested(LIMITS.jsonDepth))).status).toBe(200);
    const body = await expectProblem(await post("/any", nested(LIMITS.jsonDepth + 1)), 400, "json_too_deep");
    expect(body.limit).toBe(LIMITS.jsonDepth);
  });

  it("a body of exactly the route's size limit is read; one byte over is a 413 naming the limit", async () => {
    expect(await (await post("/small", jsonOfSize(SMALL_LIMIT))).json()).toMatchObject({
      got: { s: expect.any(String) },
    });
    const body = await expectProblem(
      await post("/small", jsonOfSize(SMALL_LIMIT + 1)),
      413,
      "payload_too_large",
    );
    expect(body.limit).toBe(SMALL_LIMIT);
  });

  it("the size limit counts UTF-8 bytes, not characters", async () => {
    const chars = `{"s":"${"é".repeat(30)}"}`;
    expect(chars.length).toBeLessThanOrEqual(SMALL_LIMIT);
    expect(new TextEncoder().encode(chars).byteLength).toBeGreaterThan(SMALL_LIMIT);
    await expectProblem(await post("/small", chars), 413, "payload_too_large");
  });

  it("the size limit comes before the media type and JSON checks", async () => {
    await expectProblem(
      await post("/small", "x".repeat(SMALL_LIMIT + 1), "text/plain"),
      413,
      "payload_too_large",
    );
  });

  it("a streamed body without a length is cut off at the limit too", async () => {
    const bytes = new TextEncoder().encode(jsonOfSize(SMALL_LIMIT + 10));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 40));
        controller.enqueue(bytes.slice(40));
        controller.close();
      },
    });
    await expectProblem(await post("/small", stream), 413, "payload_too_large");
  });
});

describe("limitBody", () => {
  it("names the body's size and the limit, in KiB", async () => {
    // As clients send a body they hold whole: with its length.
    const sent = await send(app, "/raw", {
      method: "POST",
      body: "x".repeat(612 * 1024),
      headers: { "content-type": "application/octet-stream", "content-length": String(612 * 1024) },
    });
    const body = await expectProblem(sent, 413, "payload_too_large");
    expect(body.detail).toBe("The body is 612 KiB; the limit is 512 KiB.");
    expect(body).toMatchObject({ limit: LIMITS.requestBodyBytes, size: 612 * 1024 });
  });

  it("a streamed body without a length is said to be over the limit", async () => {
    const chunk = new TextEncoder().encode("x".repeat(300 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const body = await expectProblem(
      await post("/raw", stream, "application/octet-stream"),
      413,
      "payload_too_large",
    );
    expect(body.detail).toBe("The body is over 512 KiB; the limit is 512 KiB.");
  });

  it("defaults to the API's request body limit", async () => {
    const at = await post("/raw", "x".repeat(LIMITS.requestBodyBytes), "application/octet-stream");
    expect(await at.json()).toEqual({ bytes: LIMITS.requestBodyBytes });
    const body = await expectProblem(
      await post("/raw", "x".repeat(LIMITS.requestBodyBytes + 1), "application/octet-stream"),
      413,
      "payload_too_large",
    );
    expect(body.limit).toBe(LIMITS.requestBodyBytes);
  });
});

describe("optionalJsonBody", () => {
  it("no body, or only whitespace, is {} whatever the content type", async () => {
    expect(await (await post("/action", null, null)).json()).toEqual({ got: { force: false } });
    expect(await (await post("/action", " \n\t", "text/plain")).json()).toEqual({ got: { force: false } });
    expect(await (await post("/action", "", "application/json")).json()).toEqual({ got: { force: false } });
  });

  it("a body must be JSON by media type and content, and match the schema", async () => {
    expect(await (await post("/action", '{"force":true}')).json()).toEqual({ got: { force: true } });
    await expectProblem(await post("/action", '{"force":true}', "text/plain"), 415, "unsupported_media_type");
    await expectProblem(await post("/action", "{force}"), 400, "invalid_json");
    const shape = await expectProblem(await post("/action", '{"force":"yes"}'), 400, "invalid_request");
    expect(shape.errors?.map((e) => e.path)).toEqual(["/force"]);
  });

  it("a body nested deeper than the limit is a 400 json_too_deep", async () => {
    await expectProblem(await post("/action", nested(LIMITS.jsonDepth + 1)), 400, "json_too_deep");
  });
});
