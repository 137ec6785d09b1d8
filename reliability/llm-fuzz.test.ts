// Fuzz of the LLM proxy's two routes with provider bodies: arbitrary and
// malformed OpenAI Chat Completions and Anthropic Messages requests, raw and
// through the official SDKs, in a workspace whose providers are the demo
// provider and whose request hook is the demo's. Never 5xx (the demo provider
// answers none); every error body has the provider-style `error` object; every
// answer names its request; and the provider never receives a request the
// gateway refused.
import Anthropic, { APIError as AnthropicApiError } from "@anthropic-ai/sdk";
import * as fc from "fast-check";
import { readFileSync } from "node:fs";
import OpenAI, { APIError as OpenAiApiError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bounded,
  createWorkspace,
  deployFile,
  isObject,
  limits,
  mediaType,
  numericLimit,
  parseJson,
  printFigures,
  scaled,
  putSecret,
  raiseRateLimits,
  send,
  server,
  updateConfig,
  type RawReply,
  type Workspace,
  mostly,
} from "./harness.ts";

const TIMEOUT_MS = 20_000;
const ROUTES = {
  openai: (ws: string) => `/llm/${ws}/openai/v1/chat/completions`,
  anthropic: (ws: string) => `/llm/${ws}/anthropic/v1/messages`,
} as const;
type Dialect = keyof typeof ROUTES;

/** What is wrong with an LLM route's answer, or null. */
function answerDefect(reply: RawReply): string | null {
  if (reply.kind === "hang") return "hang";
  if (reply.kind === "dropped") return `connection dropped (${reply.error})`;
  if (reply.status >= 500) return `HTTP ${reply.status}`;
  if (typeof reply.headers["x-rayrun-request-id"] !== "string") return "no x-rayrun-request-id";
  if (reply.status < 400) return null;
  const parsed = parseJson(reply.text);
  if (!parsed.ok || !isObject(parsed.value)) return "an error body that is not a JSON object";
  const { error } = parsed.value;
  if (!isObject(error) || typeof error.message !== "string" || typeof error.type !== "string")
    return "an error body without the provider-style error { type, message }";
  return null;
}

/** A refusal by the gateway itself (a problem document), as opposed to an answer relayed from the provider. */
const refusedByGateway = (reply: RawReply): boolean =>
  reply.kind === "reply" && mediaType(reply.headers) === "application/problem+json";

interface Built {
  dialect: Dialect;
  body: string;
  headers: Record<string, string>;
}

/** Absent twice as often as generated. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** The usual value, and now and then a wrong one. */
const rarely = <T>(usual: fc.Arbitrary<T>, wrong: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 12, arbitrary: usual }, { weight: 1, arbitrary: wrong });

/** JSON of an object without its undefined members. */
const stripped = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)));

describe("LLM fuzz", () => {
  const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);
  let ws: Workspace;
  let providerId = "";
  let bodyLimit = 0;
  let jsonDepth = 0;
  const tallies = {
    raw: { requests: 0, relayed: 0, refused: 0, serverErrors: 0, defects: 0, hangs: 0 },
    sdk: { requests: 0, relayed: 0, refused: 0, serverErrors: 0, defects: 0, hangs: 0 },
  };
  const rawDefects: string[] = [];
  const sdkDefects: string[] = [];
  let leaked = 0;

  const received = async (): Promise<number> => {
    const res = await fetch(`${server().providerUrl}/${providerId}/_received`);
    return ((await res.json()) as unknown[]).length;
  };

  beforeAll(async () => {
    const all = await limits();
    bodyLimit = numericLimit(all, "requestBodyBytes");
    jsonDepth = numericLimit(all, "jsonDepth");
    ws = await createWorkspace("reliability-llm-fuzz");
    // The fuzz is about answers, not quotas: a 429 would hide what the body would have met.
    await raiseRateLimits(ws);
    // A provider of its own on the demo provider, so its received list counts only this file's calls.
    providerId = `rel-llm-fuzz-${ws.uid}`;
    await putSecret(ws, "provider-key", "sk-fuzz");
    await deployFile(
      ws,
      "lib/request-policy.ts",
      readFileSync(new URL("../dev/examples/request-policy.ts", import.meta.url), "utf8"),
      {
        export: "transform",
        input: {
          request: { messages: [{ role: "user", content: "hi" }], tools: [], options: {} },
          loop: { name: "main" },
        },
      },
    );
    const root = `${server().providerUrl}/${providerId}`;
    const saved = await updateConfig(ws, (config) => ({
      ...config,
      providers: {
        openai: { baseUrl: `${root}/v1`, apiKeySecret: "provider-key" },
        anthropic: { baseUrl: root, apiKeySecret: "provider-key" },
      },
      pre_llm_hook: { source: "lib/request-policy.ts:transform", scope: "all" },
    }));
    if (saved.status !== 200) throw new Error(`config: ${saved.status} ${JSON.stringify(saved.body)}`);
  });

  afterAll(() => {
    const row = (client: string, t: (typeof tallies)["raw"]) => ({
      client,
      requests: t.requests,
      "relayed from provider": t.relayed,
      "refused by gateway": t.refused,
      "5xx": t.serverErrors,
      "bad error body": t.defects,
      hangs: t.hangs,
    });
    printFigures(
      "LLM fuzz",
      [row("raw HTTP", tallies.raw), row("official SDKs", tallies.sdk)],
      [
        `refused requests that reached the provider: ${leaked}`,
        `seed ${seed}`,
        ...[...rawDefects, ...sdkDefects].slice(0, 20).map((d) => `defect: ${d}`),
      ],
    );
  });

  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const openaiMessage = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        role: fc.constantFrom("user", "system", "assistant", "developer"),
        content: text,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          role: fc.constantFrom("tool", "function", "nobody", ""),
          content: fc.oneof(
            text,
            fc.array(
              fc.record(
                { type: fc.constantFrom("text", "image_url", "x"), text: text },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          ),
          tool_call_id: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
        },
        { requiredKeys: ["role"] },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const anthropicMessage = fc.oneof(
    { weight: 6, arbitrary: fc.record({ role: fc.constantFrom("user", "assistant"), content: text }) },
    {
      weight: 1,
      arbitrary: fc.record({
        role: fc.constantFrom("user", "system", "x"),
        content: fc.array(
          fc.record(
            {
              type: fc.constantFrom("text", "tool_use", "tool_result", "image", "x"),
              text,
              id: fc.string({ maxLength: 5 }),
              input: fc.jsonValue({ maxDepth: 2 }),
            },
            { requiredKeys: ["type"] },
          ),
          { maxLength: 3 },
        ),
      }),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const tools = fc.oneof(
    fc.array(
      fc.record({
        type: fc.constant("function"),
        function: fc.record(
          {
            name: fc.constantFrom("fs_read", "fs_write", "shell_exec", ""),
            parameters: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: ["name"] },
        ),
      }),
      { maxLength: 3 },
    ),
    fc.array(
      fc.record({
        name: fc.constantFrom("fs_read", "shell_exec", ""),
        input_schema: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 3 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const model = fc.oneof(
    { weight: 6, arbitrary: fc.constant<unknown>("demo") },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  );

  const openaiBody = fc.record({
    model,
    messages: fc.oneof(
      { weight: 6, arbitrary: fc.array(openaiMessage, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
    stream: maybe(fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 }))),
    stream_options: maybe(
      fc.oneof(fc.record({ include_usage: fc.jsonValue({ maxDepth: 1 }) }), fc.jsonValue({ maxDepth: 1 })),
    ),
    temperature: maybe(fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 }))),
    max_tokens: maybe(fc.oneof(fc.integer(), fc.jsonValue({ maxDepth: 1 }))),
    max_completion_tokens: maybe(fc.integer()),
    tools: maybe(tools),
    tool_choice: maybe(fc.oneof(fc.constantFrom("auto", "none", "required"), fc.jsonValue({ maxDepth: 2 }))),
    extra: maybe(fc.jsonValue({ maxDepth: 2 })),
  });
  const anthropicBody = fc.record({
    model,
    max_tokens: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 4096 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
    ),
    messages: fc.oneof(
      { weight: 6, arbitrary: fc.array(anthropicMessage, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
    system: maybe(fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 }))),
    stream: maybe(fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 }))),
    temperature: maybe(fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 }))),
    tools: maybe(tools),
    tool_choice: maybe(fc.jsonValue({ maxDepth: 2 })),
    metadata: maybe(fc.jsonValue({ maxDepth: 2 })),
  });

  // What the SDKs accept as input (their types), mostly valid: each field is wrong now and then
  // (`rarely`), so about half the calls reach the provider and the rest meet one refusal at a time.
  const sdkMessages = (roles: readonly string[], wrongRoles: readonly string[]) =>
    fc.array(
      fc.record({
        role: rarely(fc.constantFrom(...roles), fc.constantFrom(...wrongRoles)),
        content: fc.string({ maxLength: 40 }),
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    );
  const toolName = rarely(
    fc.constantFrom("fs_read", "fs_write", "shell_exec"),
    fc.constantFrom("", "bad name!"),
  );
  const sdkOpenai = fc.record(
    {
      model: rarely(fc.constant("demo"), fc.constantFrom("", "gpt-x")),
      messages: sdkMessages(["user", "system", "assistant", "developer"], ["nobody", "tool"]),
      temperature: rarely(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.double({ min: -1, max: 5, noNaN: true }),
      ),
      max_tokens: rarely(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: -5, max: 100_000_000 })),
      tools: fc.uniqueArray(
        fc.record({ type: fc.constant("function"), function: fc.record({ name: toolName }) }),
        { maxLength: 3, selector: (t) => t.function.name },
      ),
    },
    { requiredKeys: ["model", "messages"] },
  );
  const sdkAnthropic = fc.record(
    {
      model: rarely(fc.constant("demo"), fc.constantFrom("", "claude-x")),
      max_tokens: rarely(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: -5, max: 100_000_000 })),
      messages: sdkMessages(["user", "assistant"], ["system", "x"]),
      system: fc.string({ maxLength: 20 }),
      temperature: rarely(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 5, noNaN: true }),
      ),
      tools: fc.uniqueArray(fc.record({ name: toolName, input_schema: fc.constant({ type: "object" }) }), {
        maxLength: 3,
        selector: (t) => t.name,
      }),
    },
    { requiredKeys: ["model", "max_tokens", "messages"] },
  );

  const built = (): fc.Arbitrary<Built> =>
    fc.constantFrom<Dialect>("openai", "anthropic").chain((dialect) => {
      const body = fc.oneof(
        // Well-typed bodies with values that may be refused, so a fair share reaches the provider …
        {
          weight: 8,
          arbitrary: fc
            .tuple(
              dialect === "openai" ? sdkOpenai : sdkAnthropic,
              fc.option(fc.boolean(), { nil: undefined }),
            )
            .map(([value, stream]) => stripped({ ...(value as Record<string, unknown>), stream })),
        },
        // … and wild ones of the provider's shape.
        { weight: 8, arbitrary: (dialect === "openai" ? openaiBody : anthropicBody).map(stripped) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            "{",
            "",
            "[]",
            "null",
            '{"model":"demo",',
            "\uFEFF{}",
            '{"model":"demo","messages":[}',
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .integer({ min: jsonDepth - 3, max: jsonDepth + 60 })
            .map(
              (levels) =>
                `{"model":"demo","max_tokens":5,"messages":[{"role":"user","content":${"[".repeat(levels)}${"]".repeat(levels)}}]}`,
            ),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(-100, 1, 4096).map((delta) => {
            const frame = `{"model":"demo","max_tokens":5,"messages":[{"role":"user","content":""}]}`.length;
            return `{"model":"demo","max_tokens":5,"messages":[{"role":"user","content":"${"x".repeat(Math.max(0, bodyLimit + delta - frame))}"}]}`;
          }),
        },
      );
      const fuzzedHeaders = fc.record({
        "content-type": mostly<string | undefined>(
          "application/json",
          ["text/plain", "application/json; charset=utf-8", "application/x-www-form-urlencoded", undefined],
          8,
        ),
        authorization: mostly<string | undefined>(
          `Bearer ${ws.key}`,
          [undefined, "Bearer", "Bearer sk-nope", `Basic ${ws.key}`],
          10,
        ),
        // Mostly absent or valid: an invalid one refuses the request before its body is looked at.
        "x-rayrun-loop": fc.oneof(
          { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
          { weight: 2, arbitrary: fc.constantFrom<string | undefined>("main", "inner.loop-1") },
          {
            weight: 1,
            arbitrary: fc.oneof(
              fc.constantFrom("", "a".repeat(65), "bad loop"),
              fc.string({ maxLength: 10 }).filter((v) => /^[\x20-\x7e]*$/.test(v)),
            ),
          },
        ),
        "x-rayrun-compaction": fc.oneof(
          { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
          { weight: 2, arbitrary: fc.constantFrom<string | undefined>("true", "false") },
          { weight: 1, arbitrary: fc.constantFrom<string | undefined>("yes", "") },
        ),
        "anthropic-version": maybe(fc.constantFrom("2023-06-01", "1999-01-01", "")),
      });
      // Mostly the headers an SDK sends: a bad header refuses the request before its body is looked at.
      const clean: Record<string, string | undefined> = {
        "content-type": "application/json",
        authorization: `Bearer ${ws.key}`,
      };
      const headers = fc.oneof(
        { weight: 3, arbitrary: fc.constant(clean) },
        { weight: 2, arbitrary: fuzzedHeaders },
      );
      return fc.tuple(body, headers).map(([b, h]) => ({
        dialect,
        body: b,
        headers: Object.fromEntries(
          Object.entries(h).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
      }));
    });

  it("answers raw provider bodies on both routes without 5xx, in the provider's error shape, forwarding nothing it refused", async () => {
    const before = await received();
    await fc.assert(
      fc.asyncProperty(built(), async (b) => {
        const reply = await send({
          method: "POST",
          path: ROUTES[b.dialect](ws.uid),
          headers: b.headers,
          body: b.body,
          timeoutMs: TIMEOUT_MS,
        });
        const t = tallies.raw;
        t.requests++;
        if (reply.kind === "hang") t.hangs++;
        else if (reply.kind === "reply" && reply.status >= 500) t.serverErrors++;
        if (refusedByGateway(reply)) t.refused++;
        else if (reply.kind === "reply") t.relayed++;
        const defect = answerDefect(reply);
        if (defect !== null) {
          if (reply.kind === "reply" && reply.status < 500 && defect !== "hang") t.defects++;
          if (rawDefects.length < 50)
            rawDefects.push(
              `${defect}: POST ${ROUTES[b.dialect]("{ws}")} ${JSON.stringify(b.headers).replace(ws.key, "<key>")} ${b.body.slice(0, 300)}${b.body.length > 300 ? `… (${b.body.length} chars)` : ""} → ${
                reply.kind === "reply" ? `${reply.status} ${reply.text.slice(0, 300)}` : reply.kind
              }`,
            );
        }
      }),
      { numRuns: scaled(250), seed },
    );
    // What the provider received is what the gateway relayed: nothing it refused got through.
    const got = (await received()) - before;
    leaked += Math.max(0, got - tallies.raw.relayed);
    expect(got).toBe(tallies.raw.relayed);
    expect(rawDefects).toEqual([]);
  });

  it("gives the official SDKs errors they can read, and forwards nothing it refused", async () => {
    const openai = new OpenAI({
      apiKey: ws.key,
      baseURL: `${server().url}/llm/${ws.uid}/openai/v1`,
      maxRetries: 0,
      timeout: TIMEOUT_MS,
    });
    const anthropic = new Anthropic({
      apiKey: ws.key,
      baseURL: `${server().url}/llm/${ws.uid}/anthropic`,
      maxRetries: 0,
      timeout: TIMEOUT_MS,
    });
    const before = await received();
    let requestsSeen = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          sdkOpenai.map((body) => ({ dialect: "openai" as const, body: body as Record<string, unknown> })),
          sdkAnthropic.map((body) => ({
            dialect: "anthropic" as const,
            body: body as Record<string, unknown>,
          })),
        ),
        async ({ dialect, body }) => {
          const t = tallies.sdk;
          t.requests++;
          const params = body;
          // Generated values the SDKs' types allow but do not promise to be valid (negative max_tokens, bad roles).
          const work: Promise<{ response: Response }> =
            dialect === "openai"
              ? openai.chat.completions
                  .create(params as unknown as ChatCompletionCreateParamsNonStreaming)
                  .withResponse()
              : anthropic.messages
                  .create(params as unknown as MessageCreateParamsNonStreaming)
                  .withResponse();
          const outcome = await bounded(work, TIMEOUT_MS + 2000);
          const where = `${dialect} ${JSON.stringify(params).slice(0, 300)}`;
          if (outcome.kind === "hang") {
            t.hangs++;
            sdkDefects.push(`hang: ${where}`);
            return;
          }
          if (outcome.kind === "done") {
            t.relayed++;
            requestsSeen++;
            if (outcome.value.response.headers.get("x-rayrun-request-id") === null)
              sdkDefects.push(`no request id: ${where}`);
            return;
          }
          const error = outcome.error;
          const status =
            error instanceof OpenAiApiError || error instanceof AnthropicApiError ? error.status : undefined;
          if (status === undefined) {
            t.defects++;
            sdkDefects.push(`not an API error: ${where} → ${String(error).slice(0, 200)}`);
            return;
          }
          if (status >= 500) t.serverErrors++;
          // The SDKs keep the body's `error` object; a body without one reads as a bare status.
          // OpenAI's keeps the inner object, Anthropic's the whole body.
          const kept = (error as { error?: unknown }).error;
          const inner = isObject(kept) && isObject(kept.error) ? kept.error : kept;
          const code = isObject(inner) ? (inner.code ?? inner.type) : undefined;
          if (!isObject(inner) || typeof inner.message !== "string") {
            t.defects++;
            sdkDefects.push(
              `an SDK error without the provider's message: ${where} → ${status} ${String(error).slice(0, 200)}`,
            );
          }
          const headers = (error as { headers?: Headers }).headers;
          if (headers?.get("content-type")?.startsWith("application/problem+json")) t.refused++;
          else {
            t.relayed++;
            requestsSeen++;
          }
          if (status >= 500) sdkDefects.push(`HTTP ${status} (${String(code)}): ${where}`);
        },
      ),
      { numRuns: scaled(60), seed },
    );
    const got = (await received()) - before;
    leaked += Math.max(0, got - requestsSeen);
    expect(got).toBe(requestsSeen);
    expect(sdkDefects).toEqual([]);
  });
});
