// Fuzz of the MCP endpoint, `POST /mcp/{ws}`: JSON-RPC shapes (missing or
// wrong `jsonrpc`, ids of every type, batches, unknown methods, tools/call
// with bad params, huge and deep arguments) sent raw, and arbitrary calls
// through the official MCP client. Never 5xx; every answer is JSON-RPC (JSON
// or SSE), problem+json, or the empty 202 of a message without requests; no
// request hangs.
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADAPTER_SOURCE } from "../bench/gateway-setup.ts";
import {
  bounded,
  createWorkspace,
  deployToolAdapter,
  isObject,
  limits,
  mcpClient,
  mediaType,
  numericLimit,
  parseJson,
  printFigures,
  scaled,
  problemDefect,
  raiseRateLimits,
  registerService,
  send,
  server,
  type RawReply,
  type Workspace,
  mostly,
} from "./harness.ts";

const TIMEOUT_MS = 20_000;

/** Whether `value` is one JSON-RPC 2.0 response: an id, and exactly one of result and error. */
function rpcResponseDefect(value: unknown): string | null {
  if (!isObject(value)) return "a JSON-RPC answer that is not an object";
  if (value.jsonrpc !== "2.0") return `jsonrpc ${JSON.stringify(value.jsonrpc)}`;
  if (
    !("id" in value) ||
    !(typeof value.id === "string" || typeof value.id === "number" || value.id === null)
  )
    return `id ${JSON.stringify(value.id)}`;
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) return "not exactly one of result and error";
  if (hasError) {
    const { error } = value;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string")
      return `error ${JSON.stringify(error).slice(0, 100)} lacks an integer code and a message`;
  } else if (!isObject(value.result)) return "result is not an object";
  return null;
}

interface Sent {
  /** The parsed body, when it was JSON. */
  message: unknown;
}

/** Whether a message (or batch) holds any request, i.e. something that must be answered. */
const hasRequest = (message: unknown): boolean =>
  Array.isArray(message)
    ? message.some(hasRequest)
    : isObject(message) && "id" in message && "method" in message;

/** What is wrong with an answer of the MCP endpoint, or null. */
function answerDefect(reply: RawReply, sent: Sent): string | null {
  if (reply.kind === "hang") return "hang";
  if (reply.kind === "dropped") return `connection dropped (${reply.error})`;
  if (reply.status >= 500) return `HTTP ${reply.status}`;
  const type = mediaType(reply.headers);
  if (type === "application/problem+json") return problemDefect(reply);
  if (reply.status === 202) {
    if (reply.text !== "") return "202 with a body";
    return hasRequest(sent.message) ? "202 for a message with requests" : null;
  }
  if (type === "application/json") {
    const parsed = parseJson(reply.text);
    if (!parsed.ok) return "application/json that does not parse";
    const answers = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    if (answers.length === 0) return "an empty batch answer";
    for (const answer of answers) {
      const defect = rpcResponseDefect(answer);
      if (defect !== null) return defect;
    }
    // A single request with a usable id is answered under that id.
    const message = sent.message;
    const single = answers[0];
    if (
      !Array.isArray(message) &&
      isObject(message) &&
      isObject(single) &&
      "result" in single &&
      (typeof message.id === "string" || Number.isInteger(message.id)) &&
      single.id !== message.id
    )
      return `result for id ${JSON.stringify(single.id)}, asked with id ${JSON.stringify(message.id)}`;
    return null;
  }
  if (type === "text/event-stream") {
    const events = reply.text.split(/\r?\n\r?\n/).filter((block) => block.trim() !== "");
    for (const block of events) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data === "") continue;
      const parsed = parseJson(data);
      if (!parsed.ok) return "an SSE event that is not JSON";
      const defect = rpcResponseDefect(parsed.value);
      if (defect !== null) return defect;
    }
    return null;
  }
  return `HTTP ${reply.status} with content-type ${JSON.stringify(type)}: neither JSON-RPC nor problem+json`;
}

/** A value nested `levels` deep, objects and arrays in turn. */
const deep = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
};

describe("MCP fuzz", () => {
  const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);
  let ws: Workspace;
  let names: string[] = [];
  let bodyLimit = 0;
  let jsonDepth = 0;
  const raw = { requests: 0, ok: 0, rpcErrors: 0, refused: 0, serverErrors: 0, malformed: 0, hangs: 0 };
  const sdk = { requests: 0, results: 0, rpcErrors: 0, httpRefusals: 0, other: 0, hangs: 0 };
  const rawDefects: string[] = [];
  const sdkDefects: string[] = [];
  let client: Client | undefined;

  beforeAll(async () => {
    const all = await limits();
    bodyLimit = numericLimit(all, "requestBodyBytes");
    jsonDepth = numericLimit(all, "jsonDepth");
    ws = await createWorkspace("reliability-mcp-fuzz");
    // The fuzz is about answers, not quotas: a 429 would hide what the message would have met.
    await raiseRateLimits(ws);
    const service = await registerService(ws, "fuzz", `${server().upstreamUrl}/rel-mcp-fuzz/mcp`);
    const search = service.tools.search_release_notes?.uid ?? "";
    // A hooked tool too: bad arguments then meet the adapter's public contract and its stages.
    await deployToolAdapter(ws, search, ADAPTER_SOURCE, {
      stage: "before",
      arguments: { query: "workers release" },
    });
    names = Object.values(service.tools).map((tool) => tool.name);
    client = await mcpClient(ws.uid, ws.key);
  });

  afterAll(async () => {
    await client?.close();
    printFigures(
      "MCP fuzz",
      [
        {
          client: "raw JSON-RPC",
          requests: raw.requests,
          "200 result/error": raw.ok,
          "JSON-RPC errors": raw.rpcErrors,
          "4xx": raw.refused,
          "5xx": raw.serverErrors,
          malformed: raw.malformed,
          hangs: raw.hangs,
        },
        {
          client: "official SDK",
          requests: sdk.requests,
          "200 result/error": sdk.results,
          "JSON-RPC errors": sdk.rpcErrors,
          "4xx": sdk.httpRefusals,
          "5xx": 0,
          malformed: sdk.other,
          hangs: sdk.hangs,
        },
      ],
      [`seed ${seed}`, ...[...rawDefects, ...sdkDefects].slice(0, 20).map((d) => `defect: ${d}`)],
    );
  });

  const id = fc.oneof(
    { weight: 8, arbitrary: fc.integer() },
    { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constant(null),
        fc.double(),
        fc.boolean(),
        fc.object({ maxDepth: 1 }),
        fc.array(fc.integer(), { maxLength: 3 }),
        fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, 1e300, -0, 0.5),
      ),
    },
  );
  const jsonrpc = fc.oneof(
    { weight: 6, arbitrary: fc.constant<unknown>("2.0") },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("1.0", "2", 2, null, "2.0 ", "") },
  );
  const method = fc.oneof(
    { weight: 6, arbitrary: fc.constant<unknown>("tools/call") },
    {
      weight: 3,
      arbitrary: fc.constantFrom<unknown>(
        "tools/list",
        "ping",
        "initialize",
        "notifications/initialized",
        "notifications/cancelled",
        "resources/list",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "tools/call/",
        "TOOLS/CALL",
      ),
    },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.constant(null)) },
  );
  const toolName = (): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...names) },
      { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.integer(),
          fc.constant(null),
          fc.constant(""),
          fc.array(fc.string(), { maxLength: 2 }),
          fc.constant("x".repeat(5000)),
        ),
      },
    );
  const args = (): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ text: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })) }) },
      {
        weight: 6,
        arbitrary: fc.record(
          {
            query: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })),
            limit: fc.jsonValue({ maxDepth: 1 }),
          },
          { requiredKeys: ["query"] },
        ),
      },
      {
        weight: 2,
        arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: jsonDepth - 3, max: jsonDepth + 40 })
          .map((levels) => ({ text: deep(levels) })),
      },
    );
  const meta = fc.option(
    fc.oneof(
      fc.record({
        "rayrun/approvalId": fc.oneof(
          fc.string(),
          fc.integer(),
          fc.constant(null),
          fc.object({ maxDepth: 1 }),
        ),
      }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { nil: undefined },
  );
  const params = (): fc.Arbitrary<unknown> =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          { name: toolName(), arguments: args(), _meta: meta },
          { requiredKeys: ["name"] },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    );
  // Most messages keep every usual key, so most get past the transport's own checks; some lose any of them.
  const message = (): fc.Arbitrary<Record<string, unknown>> =>
    fc.oneof(
      { weight: 4, arbitrary: fc.record({ jsonrpc, id, method, params: params() }) },
      { weight: 1, arbitrary: fc.record({ jsonrpc, id, method, params: params() }, { requiredKeys: [] }) },
    );

  interface Built {
    body: string;
    message: unknown;
    headers: Record<string, string>;
  }

  const built = (): fc.Arbitrary<Built> => {
    const body = fc.oneof(
      { weight: 8, arbitrary: message().map((m) => ({ body: JSON.stringify(m), message: m })) },
      {
        weight: 3,
        arbitrary: fc
          .array(message(), { maxLength: 20 })
          .map((batch) => ({ body: JSON.stringify(batch), message: batch })),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom("{", "[", "[]", "{}", "null", '"x"', "1", '{"jsonrpc":"2.0",', "\uFEFF{}", "[{}]")
          .map((text) => ({
            body: text,
            message: parseJson(text).ok ? (JSON.parse(text) as unknown) : undefined,
          })),
      },
      {
        weight: 1,
        // A tools/call whose arguments bring the body to just under, at and over the limit.
        arbitrary: fc
          .tuple(fc.constantFrom(...names), fc.constantFrom(-200, -1, 1, 10_000))
          .map(([name, delta]) => {
            const frame = JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name, arguments: { text: "" } },
            }).length;
            const m = {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name, arguments: { text: "x".repeat(Math.max(0, bodyLimit + delta - frame)) } },
            };
            return { body: JSON.stringify(m), message: m };
          }),
      },
    );
    const headers = fc.record({
      // Mostly a version the gateway speaks, so most requests get past the transport's checks.
      "mcp-protocol-version": fc.oneof(
        { weight: 6, arbitrary: fc.constant<string | undefined>("2025-06-18") },
        { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<string | undefined>(
            "2025-03-26",
            "2024-11-05",
            "1999-01-01",
            "latest",
            "",
          ),
        },
      ),
      accept: mostly<string | undefined>(
        "application/json, text/event-stream",
        ["application/json", "text/event-stream", "text/html", "*/*", undefined],
        6,
      ),
      // The client's loop and session, which reach plugins: mostly absent, sometimes valid, sometimes not.
      "x-rayrun-loop": fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("main", "inner.loop-1") },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("", "bad loop", "a".repeat(65), "é") },
      ),
      "mcp-session-id": fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("session-1", "x".repeat(256)) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>("", "has space", "x".repeat(257), "ü") },
      ),
      "content-type": mostly<string | undefined>(
        "application/json",
        ["text/plain", "application/json; charset=utf-8", "application/x-www-form-urlencoded", undefined],
        8,
      ),
      authorization: mostly<string | undefined>(
        `Bearer ${ws.key}`,
        [undefined, "Bearer", "Bearer nope", `Basic ${ws.key}`],
        12,
      ),
    });
    return fc.tuple(body, headers).map(([b, h]) => ({
      ...b,
      headers: Object.fromEntries(
        Object.entries(h).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    }));
  };

  it("answers raw JSON-RPC shapes with JSON-RPC or problem+json, never 5xx, never hanging", async () => {
    await fc.assert(
      fc.asyncProperty(built(), async (b) => {
        const reply = await send({
          method: "POST",
          path: `/mcp/${ws.uid}`,
          headers: b.headers,
          body: b.body,
          timeoutMs: TIMEOUT_MS,
        });
        raw.requests++;
        if (reply.kind === "hang") raw.hangs++;
        else if (reply.kind === "reply") {
          if (reply.status >= 500) raw.serverErrors++;
          else if (reply.status >= 400) raw.refused++;
          else if (reply.text.includes('"error"')) raw.rpcErrors++;
          else raw.ok++;
        }
        const defect = answerDefect(reply, { message: b.message });
        if (defect !== null) {
          raw.malformed += reply.kind === "reply" && reply.status < 500 ? 1 : 0;
          if (rawDefects.length < 50) {
            rawDefects.push(
              `${defect}: POST /mcp/{ws} ${JSON.stringify(b.headers).replace(ws.key, "<key>")} ${b.body.slice(0, 300)}${b.body.length > 300 ? `… (${b.body.length} chars)` : ""} → ${
                reply.kind === "reply"
                  ? `${reply.status} ${reply.headers["content-type"] ?? ""} ${reply.text.slice(0, 300)}`
                  : reply.kind
              }`,
            );
          }
        }
      }),
      { numRuns: scaled(400), seed },
    );
    expect(raw.requests).toBe(scaled(400));
    expect({ serverErrors: raw.serverErrors, hangs: raw.hangs, defects: rawDefects }).toEqual({
      serverErrors: 0,
      hangs: 0,
      defects: [],
    });
  });

  it("answers arbitrary calls from the official client with results or JSON-RPC errors", async () => {
    const mcp = client;
    if (!mcp) throw new Error("the MCP client connects in beforeAll");
    const call = fc.oneof(
      fc.record({ kind: fc.constant("call" as const), name: toolName(), arguments: args() }),
      fc.record({
        kind: fc.constant("request" as const),
        method: fc.oneof(
          fc.constantFrom("tools/list", "ping", "resources/list", "prompts/list", "nope/nope"),
          fc.string({ maxLength: 20 }),
        ),
        params: fc.option(
          fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
          { nil: undefined },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        sdk.requests++;
        const work =
          c.kind === "call"
            ? mcp.callTool(
                { name: c.name as string, arguments: c.arguments as Record<string, unknown> },
                undefined,
                { timeout: TIMEOUT_MS },
              )
            : mcp.request(
                { method: c.method, ...(c.params === undefined ? {} : { params: c.params }) },
                z.object({}).loose(),
                { timeout: TIMEOUT_MS },
              );
        const outcome = await bounded(work, TIMEOUT_MS + 2000);
        if (outcome.kind === "hang") {
          sdk.hangs++;
          sdkDefects.push(`the SDK call hung: ${JSON.stringify(c).slice(0, 300)}`);
        } else if (outcome.kind === "done") sdk.results++;
        else if (outcome.error instanceof McpError) sdk.rpcErrors++;
        else if (
          outcome.error instanceof StreamableHTTPError &&
          outcome.error.code !== undefined &&
          outcome.error.code >= 400 &&
          outcome.error.code < 500
        )
          sdk.httpRefusals++;
        else {
          sdk.other++;
          sdkDefects.push(
            `the SDK call failed outside JSON-RPC: ${JSON.stringify(c).slice(0, 300)} → ${String(outcome.error).slice(0, 300)}`,
          );
        }
      }),
      { numRuns: scaled(80), seed },
    );
    expect(sdk.requests).toBe(scaled(80));
    expect({ other: sdk.other, hangs: sdk.hangs, defects: sdkDefects }).toEqual({
      other: 0,
      hangs: 0,
      defects: [],
    });
  });
});
