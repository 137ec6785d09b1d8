// GET/PUT /v1/workspaces/{ws}/config: defaults, validation, scopes, ETag/If-Match.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG, RETENTION_DAYS } from "../../../shared/config/schema";
import { type ConfigCache, readWorkspaceConfig } from "../../../shared/config/store";
import { LIMITS } from "../../../shared/limits";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";

interface ConfigBody {
  config: Record<string, unknown> & {
    detailPolicy: string;
    retention: { detailsDays: number; logsDays: number };
  };
  version: number;
  etag: string;
  updatedAt: string | null;
  updatedBy: string | null;
}

async function setup() {
  const ws = (await createWorkspace("config")).uid;
  const admin = (await createKey(ws, ["admin"], "ada")).key;
  const writer = (await createKey(ws, ["hooks:read", "hooks:write"], "wes")).key;
  const reader = (await createKey(ws, ["hooks:read"], "rita")).key;
  return { ws, path: `/v1/workspaces/${ws}/config`, admin, writer, reader };
}

/** `"<status> <code>"` of a problem answer, for tests that check refusals only. */
async function refusal(res: Response): Promise<string> {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; code: string }>();
  expect(body.status).toBe(res.status);
  return `${body.status} ${body.code}`;
}

const put = (path: string, body: unknown, etag: string | null, key?: string) =>
  call("PUT", path, { key, body, headers: etag === null ? {} : { "if-match": etag } });

/**
 * A valid document whose JSON text is exactly `bytes` long: unique plugin
 * names (the loosest list the config takes) of at most 200 characters.
 */
function sized(bytes: number) {
  // `{"plugins":[]}` plus, per name, its length + 2 quotes + 1 comma, less one comma.
  let left = bytes - JSON.stringify({ plugins: [] }).length + 1;
  const plugins: string[] = [];
  while (left > 0) {
    const length = Math.min(200, left - 3);
    plugins.push(`p${plugins.length}`.padEnd(length, "a"));
    left -= length + 3;
  }
  return { plugins };
}

describe("workspace config", () => {
  it('answers the defaults at version 0 with ETag "c0" when the config was never written', async () => {
    const s = await setup();
    const res = await call("GET", s.path, { key: s.reader });
    expect(res.headers.get("etag")).toBe('"c0"');
    const body = await json<ConfigBody>(res, 200);
    expect(body).toEqual({
      config: DEFAULT_CONFIG,
      version: 0,
      etag: '"c0"',
      updatedAt: null,
      updatedBy: null,
    });
    expect(body.config).toEqual({
      detailPolicy: "capture",
      retention: { detailsDays: 7, logsDays: 30 },
      rateLimits: DEFAULT_CONFIG.rateLimits,
    });
  });

  it("an admin key replaces the document under If-Match; the version, ETag and author follow", async () => {
    const s = await setup();
    const document = { detailPolicy: "none", retention: { detailsDays: 3 } };
    const res = await put(s.path, document, '"c0"', s.admin);
    expect(res.headers.get("etag")).toBe('"c1"');
    const saved = await json<ConfigBody>(res, 200);
    expect(saved).toMatchObject({ version: 1, etag: '"c1"', updatedBy: "ada" });
    expect(saved.config).toEqual({
      detailPolicy: "none",
      retention: { detailsDays: 3, logsDays: 30 },
      rateLimits: DEFAULT_CONFIG.rateLimits,
    });
    const read = await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200);
    expect(read).toEqual(saved);

    // A PUT replaces the whole document: what it leaves out returns to the default.
    const second = await json<ConfigBody>(
      await put(s.path, { retention: { logsDays: 60 } }, '"c1"', s.admin),
      200,
    );
    expect(second.config).toEqual({
      detailPolicy: "capture",
      retention: { detailsDays: 7, logsDays: 60 },
      rateLimits: DEFAULT_CONFIG.rateLimits,
    });
    expect(second.version).toBe(2);
  });

  it("the config GET answers can be PUT back unchanged", async () => {
    const s = await setup();
    const read = await json<ConfigBody>(await call("GET", s.path, { key: s.admin }), 200);
    const saved = await json<ConfigBody>(await put(s.path, read.config, read.etag, s.admin), 200);
    expect(saved.config).toEqual(read.config);
  });

  it("PUT without If-Match is 428 and If-Match: * is 428", async () => {
    const s = await setup();
    expect(await refusal(await put(s.path, {}, null, s.admin))).toBe("428 precondition_required");
    expect(await refusal(await put(s.path, {}, "*", s.admin))).toBe("428 precondition_required");
  });

  it("PUT with a stale ETag is 412 and names the current ETag", async () => {
    const s = await setup();
    await json(await put(s.path, { detailPolicy: "none" }, '"c0"', s.admin), 200);
    const res = await put(s.path, { detailPolicy: "capture" }, '"c0"', s.admin);
    expect(res.headers.get("etag")).toBe('"c1"');
    const problem = await expectProblem(res, 412, "precondition_failed");
    expect(problem).toMatchObject({ etag: '"c1"', version: 1 });
    const read = await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200);
    expect(read.config.detailPolicy).toBe("none");
  });

  it("of 10 concurrent PUTs with one ETag exactly one succeeds and the rest are 412", async () => {
    const s = await setup();
    for (const etag of ['"c0"', '"c1"']) {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          put(s.path, { retention: { detailsDays: i + 1 } }, etag, s.admin),
        ),
      );
      const statuses = responses.map((r) => r.status).toSorted((a, b) => a - b);
      expect(statuses).toEqual([200, ...Array<number>(9).fill(412)]);
      const winner = responses.find((r) => r.status === 200);
      const won = await json<ConfigBody>(winner ?? new Response(null, { status: 599 }), 200);
      await Promise.all(responses.filter((r) => r !== winner).map(async (r) => r.body?.cancel()));
      const read = await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200);
      expect(read).toEqual(won);
    }
    const rows = await env.DB.prepare("select version from workspace_configs where workspace_uid = ?")
      .bind(s.ws)
      .all();
    expect(rows.results).toEqual([{ version: 2 }]);
  });

  it("PUT needs the admin scope; hooks:read reads the config", async () => {
    const s = await setup();
    expect(await refusal(await put(s.path, {}, '"c0"', s.writer))).toBe("403 forbidden");
    expect(await refusal(await put(s.path, {}, '"c0"', s.reader))).toBe("403 forbidden");
    await json(await call("GET", s.path, { key: s.reader }), 200);
    expect(await refusal(await call("GET", s.path, { key: null }))).toBe("401 unauthorized");
  });

  it("a key of another workspace is refused with 403 on GET and PUT", async () => {
    const s = await setup();
    const other = await createWorkspace("other");
    const { key } = await createKey(other.uid, ["admin"]);
    expect(await refusal(await call("GET", s.path, { key }))).toBe("403 forbidden");
    expect(await refusal(await put(s.path, {}, '"c0"', key))).toBe("403 forbidden");
  });

  it("an unknown workspace is 404 for the platform key", async () => {
    expect(await refusal(await call("GET", "/v1/workspaces/ws_nope/config"))).toBe("404 workspace_not_found");
    expect(await refusal(await put("/v1/workspaces/ws_nope/config", {}, '"c0"'))).toBe(
      "404 workspace_not_found",
    );
  });

  it("unknown top-level keys are refused with field errors", async () => {
    const s = await setup();
    const problem = await expectProblem(
      await put(s.path, { detail_policy: "none" }, '"c0"', s.admin),
      400,
      "invalid_request",
    );
    expect(JSON.stringify(problem.errors)).toContain("detail_policy");
    expect(await refusal(await put(s.path, { retention: { days: 3 } }, '"c0"', s.admin))).toBe(
      "400 invalid_request",
    );
  });

  it("detailPolicy is capture or none", async () => {
    const s = await setup();
    const problem = await expectProblem(
      await put(s.path, { detailPolicy: "metadata" }, '"c0"', s.admin),
      400,
      "invalid_request",
    );
    expect(problem.errors).toEqual([expect.objectContaining({ path: "/detailPolicy" })]);
  });

  it("retention days are bounded: details 1..90, logs 1..365", async () => {
    const s = await setup();
    const cases: [Record<string, number>, boolean][] = [
      [{ detailsDays: RETENTION_DAYS.details.min - 1 }, false],
      [{ detailsDays: RETENTION_DAYS.details.max + 1 }, false],
      [{ detailsDays: 1.5 }, false],
      [{ logsDays: RETENTION_DAYS.logs.min - 1 }, false],
      [{ logsDays: RETENTION_DAYS.logs.max + 1 }, false],
    ];
    for (const [retention] of cases) {
      const problem = await expectProblem(
        await put(s.path, { retention }, '"c0"', s.admin),
        400,
        "invalid_request",
      );
      expect(problem.errors).toEqual([
        expect.objectContaining({ path: `/retention/${Object.keys(retention)[0]}` }),
      ]);
    }
    let etag = '"c0"';
    for (const retention of [
      { detailsDays: RETENTION_DAYS.details.min, logsDays: RETENTION_DAYS.logs.min },
      { detailsDays: RETENTION_DAYS.details.max, logsDays: RETENTION_DAYS.logs.max },
    ]) {
      const saved = await json<ConfigBody>(await put(s.path, { retention }, etag, s.admin), 200);
      expect(saved.config.retention).toEqual(retention);
      etag = saved.etag;
    }
  });

  it("reserved keys for later features are accepted and stored as given", async () => {
    const s = await setup();
    const document = {
      pre_llm_hook: {
        source: "lib/request-policy.ts:transform",
        scope: "loops",
        loops: ["researcher"],
        include_main: true,
        timeout_ms: 200,
      },
      plugins: ["redact", "audit"],
      limits: { execution_timeout_ms: 1500 },
      code_execution: { sys_lambda: true },
      providers: { openai: { baseUrl: "https://api.openai.com/v1", apiKeySecret: "OPENAI_KEY" } },
    };
    const saved = await json<ConfigBody>(await put(s.path, document, '"c0"', s.admin), 200);
    expect(saved.config).toEqual({ ...DEFAULT_CONFIG, ...document });
    expect(await readWorkspaceConfig(env.DB, s.ws)).toEqual({ ...DEFAULT_CONFIG, ...document });
  });

  it("reserved keys keep their basic shapes", async () => {
    const s = await setup();
    const bad = [
      { pre_llm_hook: "lib/x.ts" },
      { plugins: "redact" },
      { plugins: ["redact", "redact"] },
      { plugins: [""] },
      { limits: { execution_timeout_ms: 0 } },
      { limits: { execution_timeout_ms: 1.5 } },
      { code_execution: { sys_lambda: "yes" } },
      { providers: [] },
    ];
    for (const document of bad) {
      expect(await refusal(await put(s.path, document, '"c0"', s.admin))).toBe("400 invalid_request");
    }
  });

  it("pre_llm_hook: the documented examples are stored exactly as given; all stays all", async () => {
    const s = await setup();
    const all = { source: "lib/request-policy.ts:transform", scope: "all", timeout_ms: 5000 };
    const loops = {
      source: "lib/request-policy.ts:transform",
      scope: "loops",
      loops: ["researcher", "reviewer"],
    };
    let etag = '"c0"';
    for (const hook of [all, loops, { source: "lib/request-policy.ts", scope: "main" }]) {
      const saved = await json<ConfigBody>(await put(s.path, { pre_llm_hook: hook }, etag, s.admin), 200);
      const read = await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200);
      expect(read.config.pre_llm_hook).toStrictEqual(hook);
      etag = saved.etag;
    }
  });

  it("pre_llm_hook: timeout_ms over limits.execution_timeout_ms is stored as given", async () => {
    const s = await setup();
    const document = {
      pre_llm_hook: { source: "lib/x.ts", scope: "all", timeout_ms: 60_000 },
      limits: { execution_timeout_ms: 1000 },
    };
    const saved = await json<ConfigBody>(await put(s.path, document, '"c0"', s.admin), 200);
    expect(saved.config).toMatchObject(document);
  });

  it("an invalid pre_llm_hook, providers or modelOutputLimits is refused naming the field, and nothing is stored", async () => {
    const s = await setup();
    const stored = await json<ConfigBody>(
      await put(
        s.path,
        { detailPolicy: "none", pre_llm_hook: { source: "lib/x.ts", scope: "main" } },
        '"c0"',
        s.admin,
      ),
      200,
    );
    const cases: [unknown, string][] = [
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "loops" } }, "/pre_llm_hook/loops"],
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "all", loops: ["a"] } }, "/pre_llm_hook/loops"],
      [
        { pre_llm_hook: { source: "lib/x.ts", scope: "loops", loops: ["a", "main"] } },
        "/pre_llm_hook/loops/1",
      ],
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "loops", loops: ["a", "a"] } }, "/pre_llm_hook/loops/1"],
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "loops", loops: [] } }, "/pre_llm_hook/loops"],
      [
        { pre_llm_hook: { source: "lib/x.ts", scope: "main", include_main: true } },
        "/pre_llm_hook/include_main",
      ],
      [{ pre_llm_hook: { source: "lib/../x.ts", scope: "all" } }, "/pre_llm_hook/source"],
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "some" } }, "/pre_llm_hook/scope"],
      [{ pre_llm_hook: { source: "lib/x.ts", scope: "all", timeout_ms: 0 } }, "/pre_llm_hook/timeout_ms"],
      [{ providers: { openai: { baseUrl: "ftp://x.test" } } }, "/providers/openai/baseUrl"],
      [
        { providers: { anthropic: { baseUrl: "https://x.test", apiKeySecret: "a b" } } },
        "/providers/anthropic/apiKeySecret",
      ],
      [{ providers: { gemini: { baseUrl: "https://x.test" } } }, "/providers"],
      [{ modelOutputLimits: { default: 0 } }, "/modelOutputLimits/default"],
      [{ modelOutputLimits: { models: { "gpt-4o": 1.5 } } }, "/modelOutputLimits/models/gpt-4o"],
    ];
    for (const [document, path] of cases) {
      const problem = await expectProblem(
        await put(s.path, document, stored.etag, s.admin),
        400,
        "invalid_request",
      );
      expect(problem.errors, path).toEqual([expect.objectContaining({ path })]);
    }
    expect(await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200)).toEqual(stored);
  });

  it("providers: openai and anthropic are stored as given", async () => {
    const s = await setup();
    const providers = {
      openai: { baseUrl: "https://api.openai.com/v1", apiKeySecret: "OPENAI_KEY" },
      anthropic: { baseUrl: "http://localhost:8788" },
    };
    await json(await put(s.path, { providers }, '"c0"', s.admin), 200);
    const read = await json<ConfigBody>(await call("GET", s.path, { key: s.reader }), 200);
    expect(read.config.providers).toStrictEqual(providers);
  });

  it("a config over 16 KiB of JSON is refused with 413; exactly at the limit passes", async () => {
    const s = await setup();
    expect(JSON.stringify(sized(LIMITS.configBytes)).length).toBe(LIMITS.configBytes);
    const problem = await expectProblem(
      await put(s.path, sized(LIMITS.configBytes + 1), '"c0"', s.admin),
      413,
      "payload_too_large",
    );
    expect(problem).toMatchObject({ limit: LIMITS.configBytes, size: LIMITS.configBytes + 1 });
    await json(await put(s.path, sized(LIMITS.configBytes), '"c0"', s.admin), 200);
  });

  it("readWorkspaceConfig reads D1 once per workspace for one request's cache", async () => {
    const s = await setup();
    const cache: ConfigCache = new Map();
    expect((await readWorkspaceConfig(env.DB, s.ws, cache)).detailPolicy).toBe("capture");
    await json(await put(s.path, { detailPolicy: "none" }, '"c0"', s.admin), 200);
    // Same request: the value it started with. A new request sees the write.
    expect((await readWorkspaceConfig(env.DB, s.ws, cache)).detailPolicy).toBe("capture");
    expect((await readWorkspaceConfig(env.DB, s.ws, new Map())).detailPolicy).toBe("none");
    expect((await readWorkspaceConfig(env.DB, s.ws)).detailPolicy).toBe("none");
  });

  it("readWorkspaceConfig answers the defaults for a workspace that never wrote its config", async () => {
    expect(await readWorkspaceConfig(env.DB, "ws_never_written")).toEqual(DEFAULT_CONFIG);
  });

  it("a stored document that no longer validates reads as the defaults", async () => {
    const s = await setup();
    await json(await put(s.path, { detailPolicy: "none" }, '"c0"', s.admin), 200);
    await env.DB.prepare("update workspace_configs set document = ? where workspace_uid = ?")
      .bind(JSON.stringify({ detailPolicy: "sometimes" }), s.ws)
      .run();
    expect(await readWorkspaceConfig(env.DB, s.ws)).toEqual(DEFAULT_CONFIG);
  });
});
