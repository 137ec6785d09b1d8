// Fuzz of the REST API from its own description: every path and method of
// GET /v1/openapi.json gets arbitrary and malformed requests (bodies, path
// parameters, headers). No request may answer 5xx, hang or drop the
// connection; every error is application/problem+json with a `code`; and a
// batch of writes that must be refused leaves the workspace's observable state
// exactly as it was.
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiOk,
  createKey,
  createWorkspace,
  isObject,
  limits,
  numericLimit,
  printFigures,
  scaled,
  problemDefect,
  registerService,
  saveDraft,
  send,
  server,
  type RawReply,
  type RawRequest,
  type Workspace,
} from "./harness.ts";

interface Operation {
  method: string;
  /** The templated path, e.g. `/v1/workspaces/{ws}/keys/{id}`. */
  path: string;
  hasBody: boolean;
  /** Top-level body property names, where the schema names them without a $ref. */
  properties: string[];
}

const METHODS = ["get", "post", "put", "delete", "patch"] as const;

/**
 * The REST operations of the document, from `paths` alone (the /mcp and /llm
 * operations answer in their own protocols' error shapes, not problem+json).
 */
function operationsOf(document: unknown): Operation[] {
  if (!isObject(document) || !isObject(document.paths)) throw new Error("the OpenAPI document has no paths");
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item) || !path.startsWith("/v1/")) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const content =
        isObject(op.requestBody) && isObject(op.requestBody.content) ? op.requestBody.content : null;
      const schema =
        content && isObject(content["application/json"]) ? content["application/json"].schema : null;
      const properties =
        isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [];
      out.push({ method: method.toUpperCase(), path, hasBody: content !== null, properties });
    }
  }
  return out;
}

/** Percent-encodes what a request target cannot carry, leaving `%` as is so malformed escapes survive. */
const rawSegment = (text: string): string =>
  Array.from(text)
    .map((char) =>
      /^[A-Za-z0-9\-._~%!$&'()*+,;=:@]$/.test(char)
        ? char
        : [...Buffer.from(char, "utf8")]
            .map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`)
            .join(""),
    )
    .join("");

const MALFORMED_SEGMENTS = [
  "%E0%A4%A",
  "%",
  "%%",
  "%zz",
  "%C0%AF",
  "%FF%FE",
  "%00",
  "..",
  ".",
  "%2F",
  "%2e%2e",
  "a%2Fb",
  "%252F",
  "lib%2F..%2F..%2Fx.ts",
  "plugins%2F",
  "lib%2F%E0%A4%A.ts",
  "%F0%9F%98",
  "%ED%A0%80",
];

/** A path parameter: a real value of the workspace, or something malformed, unicode or very long. */
const segment = (real: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map(rawSegment) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map(rawSegment) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("a", "é", "%E0%A4%A", "😀", "ws_", "%2F"), fc.integer({ min: 64, max: 2000 }))
        .map(([unit, times]) => rawSegment(unit.repeat(times)).slice(0, 8000)),
    },
  );

const QUERY_KEYS = [
  "limit",
  "cursor",
  "format",
  "kind",
  "stage",
  "since",
  "until",
  "requestId",
  "deleted",
  "status",
  "tool",
  "target",
  "outcome",
];

const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom(...QUERY_KEYS),
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom("-1", "0", "201", "1e3", "ndjson", "%E0%A4%A", "true"),
          ),
        ),
        {
          minLength: 1,
          maxLength: 4,
        },
      )
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${rawSegment(v)}`).join("&")}`),
  },
);

/** A header value node can send: printable ASCII and Latin-1, no control characters. */
const headerValue: fc.Arbitrary<string> = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
    .map((c) => String.fromCharCode(c)),
  maxLength: 120,
});

const INVALID_JSON = [
  "{",
  "[1,",
  "{'a':1}",
  "nul",
  '{"a":}',
  "\u0000",
  // Every route reads a byte order mark before valid JSON as that JSON (RFC 8259 lets parsers ignore
  // it), so only a mark before malformed JSON is invalid.
  "\uFEFF{",
  "{}{}",
  "[]]",
  '{"a":1,}',
  "undefined",
  "NaN",
  '"\\x"',
];

const invalidJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...INVALID_JSON),
  fc.string({ minLength: 1, maxLength: 60 }).filter((text) => {
    try {
      JSON.parse(text.replace(/^\uFEFF/, ""));
      return false;
    } catch {
      return true;
    }
  }),
);

/** JSON nested `levels` deep: arrays, objects, or inside a body property. */
const nested = (levels: number, shape: "array" | "object", property: string | undefined): string => {
  const inner =
    shape === "array"
      ? `${"[".repeat(levels)}${"]".repeat(levels)}`
      : `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  return property === undefined ? inner : `{${JSON.stringify(property)}:${inner}}`;
};

/** A body for `op`: none, invalid JSON, any JSON, its own fields with any values, too deep, or around the size limit. */
function bodyFor(op: Operation, bodyLimit: number, jsonDepth: number): fc.Arbitrary<string | undefined> {
  const property = fc.constantFrom(
    ...(op.properties.length > 0 ? op.properties : ["source", "name", "value"]),
  );
  const shaped = fc
    .uniqueArray(fc.tuple(property, fc.jsonValue({ maxDepth: 3 })), { selector: ([k]) => k, maxLength: 6 })
    .map((entries) => JSON.stringify(Object.fromEntries(entries)));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: invalidJson },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 4, arbitrary: shaped },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: jsonDepth - 2, max: jsonDepth + 300 }),
          fc.constantFrom("array" as const, "object" as const),
          fc.option(property, { nil: undefined }),
        )
        .map(([levels, shape, prop]) => nested(levels, shape, prop)),
    },
    {
      weight: 1,
      // Around the body limit: just under, at, just over, and twice it.
      arbitrary: fc.tuple(fc.constantFrom(-64, -1, 0, 1, 4096, bodyLimit), property).map(([delta, prop]) => {
        const frame = `{${JSON.stringify(prop)}:""}`.length;
        return `{${JSON.stringify(prop)}:"${"x".repeat(Math.max(0, bodyLimit + delta - frame))}"}`;
      }),
    },
  );
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/problem+json",
  "application/jsonx",
  "multipart/form-data; boundary=x",
  "",
];

interface Tally {
  requests: number;
  ok: number;
  refused: number;
  serverErrors: number;
  notProblem: number;
  hangs: number;
  dropped: number;
}

const emptyTally = (): Tally => ({
  requests: 0,
  ok: 0,
  refused: 0,
  serverErrors: 0,
  notProblem: 0,
  hangs: 0,
  dropped: 0,
});

/** A defect, with the request that showed it (bodies cut short). */
interface Defect {
  what: string;
  request: string;
  answer: string;
}

const describeRequest = (r: RawRequest): string =>
  `${r.method} ${r.path.slice(0, 300)}${r.path.length > 300 ? "…" : ""} headers=${JSON.stringify(r.headers ?? {}).slice(0, 300)} body=${
    r.body === undefined
      ? "(none)"
      : `${String(r.body).slice(0, 200)}${String(r.body).length > 200 ? `… (${String(r.body).length} chars)` : ""}`
  }`;

const describeReply = (reply: RawReply): string =>
  reply.kind === "reply"
    ? `${reply.status} ${reply.headers["content-type"] ?? "(no type)"} ${reply.text.slice(0, 300)}`
    : `${reply.kind} after ${reply.ms.toFixed(0)} ms`;

/** Counts the answer and returns what is wrong with it, or null. */
function judge(reply: RawReply, tally: Tally): string | null {
  tally.requests++;
  if (reply.kind === "hang") {
    tally.hangs++;
    return "hang";
  }
  if (reply.kind === "dropped") {
    tally.dropped++;
    return "connection dropped";
  }
  if (reply.status >= 500) {
    tally.serverErrors++;
    return `HTTP ${reply.status}`;
  }
  if (reply.status < 400) {
    tally.ok++;
    return null;
  }
  tally.refused++;
  const defect = problemDefect(reply);
  if (defect !== null) tally.notProblem++;
  return defect;
}

/** A tally as table columns. */
const figures = (t: Tally) => ({
  requests: t.requests,
  "2xx/3xx": t.ok,
  "4xx": t.refused,
  "5xx": t.serverErrors,
  "not problem+json": t.notProblem,
  hangs: t.hangs,
  dropped: t.dropped,
});

describe("API fuzz from the OpenAPI document", () => {
  const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);
  const arbitraryTally = emptyTally();
  const refusedTally = emptyTally();
  let operations: Operation[] = [];
  let ws: Workspace;
  let readKey = "";
  let callKey = "";
  let real: Record<string, string[]> = {};
  let bodyLimit = 0;
  let jsonDepth = 0;
  let batches = 0;
  let changedBatches = 0;

  /** Keeps one example per kind of defect and route: enough to act on, short enough to read. */
  const record = (list: Defect[], what: string, request: RawRequest, answer: string) => {
    const route = `${request.method} ${request.path.split("?")[0]?.slice(0, 100)}`;
    if (!list.some((d) => d.what === what && d.request.startsWith(route))) {
      list.push({ what, request: describeRequest(request), answer });
    }
  };
  const arbitraryDefects: Defect[] = [];
  const refusedDefects: Defect[] = [];

  beforeAll(async () => {
    const all = await limits();
    bodyLimit = numericLimit(all, "requestBodyBytes");
    jsonDepth = numericLimit(all, "jsonDepth");
    const document = await apiOk<unknown>("GET", "/v1/openapi.json");
    operations = operationsOf(document.body);
    ws = await createWorkspace("reliability-api-fuzz");
    readKey = (await createKey(ws, ["hooks:read"], "fuzz-reader")).key;
    callKey = (await createKey(ws, ["tools:call"], "fuzz-caller")).key;
    // A key the fuzz may revoke without losing its own.
    const spare = await createKey(ws, ["hooks:read"], "fuzz-spare");
    const service = await registerService(ws, "fuzz", `${server().upstreamUrl}/rel-api-fuzz/mcp`);
    const echo = service.tools.echo?.uid ?? "";
    // Version 1 of a hook and of a lib file, so the versioned routes find something.
    await saveDraft(
      ws,
      `${ws.base}/tools/${echo}/hook`,
      'export default defineToolAdapter({ apiVersion: "rayrun.hooks/v1", before: ({ arguments: a }) => ({ action: "continue", arguments: a }) });',
    );
    await saveDraft(
      ws,
      `${ws.base}/files/${encodeURIComponent("lib/fuzz.ts")}`,
      "export function f() { return 1; }",
    );
    await apiOk("PUT", `${ws.base}/secrets/fuzz-secret`, { key: ws.key, body: { value: "v" } });
    real = {
      ws: [ws.uid],
      tool: [echo],
      svc: [service.uid],
      path: [encodeURIComponent("lib/fuzz.ts"), encodeURIComponent("plugins/fuzz.ts")],
      n: ["1", "2"],
      id: [spare.id, "apr_00000000000000000000"],
      name: ["default", "fuzz-secret"],
    };
  });

  afterAll(() => {
    printFigures(
      "API fuzz (OpenAPI)",
      [
        { case: "arbitrary requests", ...figures(arbitraryTally) },
        {
          case: `refused-write batches (${batches})`,
          ...figures(refusedTally),
          "state changed": changedBatches,
        },
      ],
      [
        `operations: ${operations.length}, seed ${seed} (RELIABILITY_SEED=${seed} repeats it)`,
        ...[...arbitraryDefects, ...refusedDefects]
          .slice(0, 20)
          .map((d) => `defect: ${d.what}\n  request: ${d.request}\n  answer:  ${d.answer}`),
      ],
    );
  });

  /** A request for `op` built from generated parts. */
  function requestArbitrary(op: Operation): fc.Arbitrary<RawRequest> {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
    const { bootstrapKey } = server();
    const authorization = fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | undefined>(`Bearer ${ws.key}`) },
      { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<string | undefined>(
          "Bearer",
          "Bearer ",
          `bearer ${ws.key.toUpperCase()}`,
          "Basic dXNlcjpwYXNz",
          `Bearer rr_${"x".repeat(43)}`,
          `Token ${ws.key}`,
          `Bearer ${ws.key} ${ws.key}`,
          `Bearer ${readKey}`,
          `Bearer ${callKey}`,
          `Bearer ${bootstrapKey}`,
          `Bearer ${"a".repeat(5000)}`,
        ),
      },
      { weight: 1, arbitrary: headerValue.map((v) => `Bearer ${v}`) },
      { weight: 1, arbitrary: headerValue },
    );
    return fc
      .record({
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constant(op.method) },
          { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH") },
        ),
        segments: fc.tuple(...params.map((name) => segment(real[name] ?? ["x"]))),
        query: op.method === "GET" ? query : fc.constant(""),
        authorization,
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant<string | undefined>("application/json") },
          { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
          { weight: 1, arbitrary: headerValue },
        ),
        ifMatch: fc.option(fc.oneof(fc.constantFrom('"c0"', '"c1"', "*", 'W/"x"', '"v1"'), headerValue), {
          nil: undefined,
        }),
        accept: fc.option(
          fc.oneof(fc.constantFrom("application/x-ndjson", "text/html", "*/*"), headerValue),
          { nil: undefined },
        ),
        body: bodyFor(op, bodyLimit, jsonDepth),
      })
      .map((r) => {
        let i = 0;
        const path = op.path.replace(/\{\w+\}/g, () => r.segments[i++] ?? "x") + r.query;
        const headers: Record<string, string> = {};
        if (r.authorization !== undefined) headers.authorization = r.authorization;
        if (r.contentType !== undefined) headers["content-type"] = r.contentType;
        if (r.ifMatch !== undefined) headers["if-match"] = r.ifMatch;
        if (r.accept !== undefined) headers.accept = r.accept;
        return {
          method: r.method,
          path,
          headers,
          ...(r.body === undefined ? {} : { body: r.body }),
          timeoutMs: 20_000,
        };
      });
  }

  it("answers arbitrary requests to every operation without 5xx, hangs or non-problem errors", async () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op), async (request) => {
          const reply = await send(request);
          const defect = judge(reply, arbitraryTally);
          if (defect !== null) record(arbitraryDefects, defect, request, describeReply(reply));
        }),
        { numRuns: scaled(10), seed },
      );
    }
    expect(arbitraryTally.requests).toBe(operations.length * scaled(10));
    expect(arbitraryDefects.map((d) => `${d.what}: ${d.request} → ${d.answer}`)).toEqual([]);
  });

  /** The workspace as its GET routes show it. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const tool = real.tool?.[0] ?? "";
    const file = real.path?.[0] ?? "";
    const paths = [
      "",
      "/keys?limit=200",
      "/config",
      "/services?limit=200",
      "/services?deleted=true&limit=200",
      "/tools?limit=200",
      `/tools/${tool}`,
      `/tools/${tool}/gateway`,
      `/tools/${tool}/hook`,
      `/tools/${tool}/hook/versions?limit=200`,
      `/tools/${tool}/hook/revisions?limit=200`,
      "/files?limit=200",
      `/files/${file}`,
      `/files/${file}/versions?limit=200`,
      "/access-profiles",
      "/secrets",
      "/approvals?limit=200",
    ];
    const entries = await Promise.all(
      paths.map(async (path) => {
        const answer = await api("GET", `${ws.base}${path}`, { key: ws.key });
        return [
          path,
          { status: answer.status, etag: answer.headers.get("etag"), body: answer.body },
        ] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  /** A write that must be refused: a real target, with one defect that decides the answer. */
  function refusedWrite(): fc.Arbitrary<RawRequest> {
    const writes = operations.filter((op) => op.method !== "GET");
    return fc.constantFrom(...writes).chain((op) => {
      let i = 0;
      const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
      const path = op.path.replace(/\{\w+\}/g, () => real[params[i++] ?? ""]?.[0] ?? "x");
      const validBody = JSON.stringify({
        value: "changed",
        name: "changed",
        source: "export {}",
        scopes: ["admin"],
        actor: "x",
        version: 1,
        channel: "active",
        allowedTools: [],
        url: "http://127.0.0.1:9/mcp",
      });
      const auth = (
        authorization: string | undefined,
        body: string = validBody,
        contentType = "application/json",
      ) => ({
        method: op.method,
        path,
        headers: {
          ...(authorization === undefined ? {} : { authorization }),
          "content-type": contentType,
          "if-match": '"c0"',
        },
        body,
      });
      const defects: fc.Arbitrary<RawRequest>[] = [
        fc
          .constantFrom(
            undefined,
            "Bearer",
            `Bearer rr_${"z".repeat(43)}`,
            `Bearer ${readKey}`,
            `Bearer ${callKey}`,
            `Basic ${ws.key}`,
          )
          .map((a) => auth(a)),
        headerValue.map((a) => auth(a)),
      ];
      if (op.hasBody) {
        const admin = `Bearer ${ws.key}`;
        defects.push(
          invalidJson.map((body) => auth(admin, body)),
          fc
            .constantFrom(
              "text/plain",
              "application/x-www-form-urlencoded",
              "multipart/form-data; boundary=x",
            )
            .map((type) => auth(admin, validBody, type)),
          fc
            .integer({ min: jsonDepth + 1, max: jsonDepth + 100 })
            .map((levels) => auth(admin, nested(levels, "object", op.properties[0] ?? "value"))),
          fc.constant(auth(admin, `{"value":"${"x".repeat(bodyLimit)}"}`)),
        );
      }
      return fc.oneof(...defects);
    });
  }

  it("refused writes change nothing stored", async () => {
    // Each batch is compared with the state just before it, so one change is reported once, by its batch.
    let before = await snapshot();
    await fc.assert(
      fc.asyncProperty(fc.array(refusedWrite(), { minLength: 4, maxLength: 10 }), async (batch) => {
        batches++;
        const sent: string[] = [];
        for (const request of batch) {
          const reply = await send({ ...request, timeoutMs: 20_000 });
          sent.push(
            `${request.method} ${request.path.slice(0, 120)} → ${reply.kind === "reply" ? reply.status : reply.kind}`,
          );
          const defect = judge(reply, refusedTally);
          if (defect !== null) record(refusedDefects, defect, request, describeReply(reply));
          else if (reply.kind === "reply" && reply.status < 400)
            record(
              refusedDefects,
              `a write that must be refused answered ${reply.status}`,
              request,
              describeReply(reply),
            );
        }
        const after = await snapshot();
        // Recorded rather than thrown: shrinking would replay batches of HTTP requests for minutes.
        const changed = Object.keys(before).filter(
          (path) => JSON.stringify(after[path]) !== JSON.stringify(before[path]),
        );
        if (changed.length > 0) {
          changedBatches++;
          record(
            refusedDefects,
            `a batch of refused writes changed ${changed.join(", ")}`,
            batch[0] ?? { method: "?", path: "?" },
            [
              ...changed.map(
                (path) =>
                  `${path}: ${JSON.stringify(before[path]).slice(0, 200)} → ${JSON.stringify(after[path]).slice(0, 200)}`,
              ),
              `the batch: ${sent.join("; ")}`,
            ].join("; "),
          );
        }
        before = after;
      }),
      { numRuns: scaled(8), seed },
    );
    // The defects first: a write answered 2xx names the request that changed something.
    expect(refusedDefects.map((d) => `${d.what}: ${d.request} → ${d.answer}`)).toEqual([]);
    expect(changedBatches).toBe(0);
    expect(refusedTally.refused).toBe(refusedTally.requests);
  });
});
