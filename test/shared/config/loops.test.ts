// The workspace config's `loops` and `recovery`: stored through the config API,
// resolved per loop with main as every loop's default, an inner loop only
// narrowing it, and each new limit at its boundary.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type LoopsConfig,
  loopPolicy,
  normaliseSource,
  structuralRetries,
} from "../../../shared/config/loops";
import { WorkspaceConfigDocument } from "../../../shared/config/schema";
import { readWorkspaceConfig } from "../../../shared/config/store";
import { LIMITS } from "../../../shared/limits";
import { codeBlocks, section } from "../../docs/snippets";
import { call, createKey, createWorkspace, expectProblem, json } from "../../helpers/api";

interface Stored {
  config: Record<string, unknown>;
  etag: string;
  version: number;
}

async function setup() {
  const ws = (await createWorkspace("loops")).uid;
  const admin = (await createKey(ws, ["admin"], "ada")).key;
  return { ws, admin, path: `/v1/workspaces/${ws}/config` };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const put = (s: Setup, document: unknown, etag: string) =>
  call("PUT", s.path, { key: s.admin, body: document, headers: { "if-match": etag } });

const read = async (s: Setup) => json<Stored>(await call("GET", s.path, { key: s.admin }), 200);

/** Stores `document` in a new workspace and answers the config in force as the LLM path reads it. */
async function stored(document: Record<string, unknown>) {
  const s = await setup();
  const saved = await json<Stored>(await put(s, document, '"c0"'), 200);
  expect(saved.config).toMatchObject(document);
  return readWorkspaceConfig(env.DB, s.ws);
}

/**
 * `document` is refused with 400 and one field error at `path`, and the
 * workspace keeps the config it had.
 */
async function expectRefused(document: unknown, path: string, baseline: Record<string, unknown> = {}) {
  const s = await setup();
  const before = await json<Stored>(await put(s, baseline, '"c0"'), 200);
  const problem = await expectProblem(await put(s, document, before.etag), 400, "invalid_request");
  expect(problem.errors, path).toEqual([expect.objectContaining({ path, message: expect.any(String) })]);
  expect(await read(s)).toEqual(before);
}

/** `n` distinct valid lambda sources. */
const sources = (n: number) => Array.from({ length: n }, (_, i) => `lib/s${i}.ts:run`);
/** `n` distinct model names. */
const modelNames = (n: number) => Array.from({ length: n }, (_, i) => `model-${i}`);
/** `n` loops with empty entries, main among them. */
const emptyLoops = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [i === 0 ? "main" : `loop-${i}`, {}]));

const DEFAULT_POLICY = {
  lambda: { allow: null, approve: [] },
  model: { allow: true, models: null, maxCalls: LIMITS.hostModelCallsPerInvocation, approve: false },
};

describe("loop policies: resolution", () => {
  it("defaults: no loops key gives every loop any lambda and up to the limit of model calls, without approvals", async () => {
    const config = await stored({ detailPolicy: "none" });
    expect(loopPolicy(config, "main")).toEqual({ loop: "main", ...DEFAULT_POLICY });
    expect(loopPolicy(config, "search")).toEqual({ loop: "search", ...DEFAULT_POLICY });
    expect(structuralRetries(config)).toBe(0);
  });

  it("an inner loop without an entry gets main's policy, sources spelled out", async () => {
    const main = {
      lambda: { allow: ["lib/search.ts", "lib/rank.ts:score"], approve: ["lib/rank.ts:score"] },
      model: { allow: true, models: ["gpt-4o"], maxCalls: 3, approve: true },
    };
    const config = await stored({ loops: { main, search: { model: { maxCalls: 1 } } } });
    const resolved = {
      lambda: { allow: ["lib/search.ts:main", "lib/rank.ts:score"], approve: ["lib/rank.ts:score"] },
      model: { allow: true, models: ["gpt-4o"], maxCalls: 3, approve: true },
    };
    expect(loopPolicy(config, "main")).toEqual({ loop: "main", ...resolved });
    expect(loopPolicy(config, "review")).toEqual({ loop: "review", ...resolved });
    // A name only Object.prototype has is a loop without an entry too.
    expect(loopPolicy(config, "constructor")).toEqual({ loop: "constructor", ...resolved });
  });

  it("lambda.allow: an inner loop's list intersects main's; with no main list it is the loop's own", async () => {
    const config = await stored({
      loops: {
        main: { lambda: { allow: ["lib/a.ts", "lib/b.ts:run"] } },
        search: { lambda: { allow: ["lib/a.ts:main"] } },
        none: { lambda: { allow: [] } },
      },
    });
    expect(loopPolicy(config, "search").lambda.allow).toEqual(["lib/a.ts:main"]);
    expect(loopPolicy(config, "none").lambda.allow).toEqual([]);
    expect(loopPolicy(config, "main").lambda.allow).toEqual(["lib/a.ts:main", "lib/b.ts:run"]);

    const open = await stored({ loops: { search: { lambda: { allow: ["lib/c.ts"] } } } });
    expect(loopPolicy(open, "search").lambda.allow).toEqual(["lib/c.ts:main"]);
    expect(loopPolicy(open, "main").lambda.allow).toBeNull();
  });

  it("lambda.approve: an inner loop adds to main's approvals and cannot drop any", async () => {
    const config = await stored({
      loops: {
        main: { lambda: { approve: ["lib/a.ts"] } },
        search: { lambda: { approve: ["lib/b.ts:run", "lib/a.ts:main"] } },
        quiet: { lambda: { approve: [] } },
      },
    });
    expect(loopPolicy(config, "search").lambda.approve).toEqual(["lib/a.ts:main", "lib/b.ts:run"]);
    expect(loopPolicy(config, "quiet").lambda.approve).toEqual(["lib/a.ts:main"]);
    expect(loopPolicy(config, "main").lambda.approve).toEqual(["lib/a.ts:main"]);
  });

  it("model.allow: an inner loop may turn model calls off; main's false holds for every loop", async () => {
    const off = await stored({ loops: { search: { model: { allow: false } } } });
    expect(loopPolicy(off, "search").model.allow).toBe(false);
    expect(loopPolicy(off, "main").model.allow).toBe(true);

    const mainOff = await stored({ loops: { main: { model: { allow: false } }, search: { model: {} } } });
    expect(loopPolicy(mainOff, "search").model.allow).toBe(false);
    expect(loopPolicy(mainOff, "other").model.allow).toBe(false);
  });

  it("model.models: an inner loop's list intersects main's; without one it keeps main's", async () => {
    const config = await stored({
      loops: {
        main: { model: { models: ["gpt-4o", "claude-sonnet-4"] } },
        search: { model: { models: ["claude-sonnet-4"] } },
        review: { model: { maxCalls: 1 } },
      },
    });
    expect(loopPolicy(config, "search").model.models).toEqual(["claude-sonnet-4"]);
    expect(loopPolicy(config, "review").model.models).toEqual(["gpt-4o", "claude-sonnet-4"]);
  });

  it("model.maxCalls: an inner loop gets the smaller of its own and main's", async () => {
    const config = await stored({
      loops: { main: { model: { maxCalls: 4 } }, search: { model: { maxCalls: 2 } }, review: {} },
    });
    expect(loopPolicy(config, "search").model.maxCalls).toBe(2);
    expect(loopPolicy(config, "review").model.maxCalls).toBe(4);
    expect(loopPolicy(config, "main").model.maxCalls).toBe(4);
  });

  it("model.approve: approval is needed when main or the loop asks for it", async () => {
    const loopAsks = await stored({ loops: { search: { model: { approve: true } } } });
    expect(loopPolicy(loopAsks, "search").model.approve).toBe(true);
    expect(loopPolicy(loopAsks, "main").model.approve).toBe(false);

    const mainAsks = await stored({ loops: { main: { model: { approve: true } }, search: {} } });
    expect(loopPolicy(mainAsks, "search").model.approve).toBe(true);
  });

  it("an entry that would widen main (stored before main got stricter) is still narrowed at run time", () => {
    // Validation refuses this document; resolution must not depend on that.
    const loops: LoopsConfig = {
      main: {
        lambda: { allow: ["lib/a.ts"] },
        model: { allow: false, models: ["m1"], maxCalls: 2, approve: true },
      },
      search: {
        lambda: { allow: ["lib/a.ts", "lib/b.ts"] },
        model: { allow: true, models: ["m1", "m2"], maxCalls: 8, approve: false },
      },
    };
    expect(loopPolicy({ loops }, "search")).toEqual({
      loop: "search",
      lambda: { allow: ["lib/a.ts:main"], approve: [] },
      model: { allow: false, models: ["m1"], maxCalls: 2, approve: true },
    });
  });

  it("normaliseSource spells out the default function name and leaves a named one alone", () => {
    expect(normaliseSource("lib/x.ts")).toBe("lib/x.ts:main");
    expect(normaliseSource("lib/x.ts:main")).toBe("lib/x.ts:main");
    expect(normaliseSource("lib/dir/x.js:transform")).toBe("lib/dir/x.js:transform");
  });

  it("recovery.structuralRetries is read as stored", async () => {
    expect(structuralRetries(await stored({ recovery: { structuralRetries: 1 } }))).toBe(1);
    expect(structuralRetries(await stored({ recovery: {} }))).toBe(0);
  });
});

describe("loop policies: an inner loop cannot widen main", () => {
  it("lambda.allow naming a source main does not allow", async () => {
    const main = { lambda: { allow: ["lib/a.ts"] } };
    // Spelled either way the same source is inside main's list; no list at all inherits it.
    await stored({ loops: { main, search: { lambda: { allow: ["lib/a.ts:main"] } }, other: {} } });
    await expectRefused(
      { loops: { main, search: { lambda: { allow: ["lib/a.ts:main", "lib/b.ts"] } } } },
      "/loops/search/lambda/allow/1",
    );
  });

  it("model.allow true when main's is false", async () => {
    await expectRefused(
      { loops: { main: { model: { allow: false } }, search: { model: { allow: true } } } },
      "/loops/search/model/allow",
    );
  });

  it("model.models naming a model main does not list", async () => {
    await expectRefused(
      { loops: { main: { model: { models: ["m1"] } }, search: { model: { models: ["m1", "m2"] } } } },
      "/loops/search/model/models/1",
    );
  });

  it("model.maxCalls above main's", async () => {
    await stored({ loops: { main: { model: { maxCalls: 2 } }, search: { model: { maxCalls: 2 } } } });
    await expectRefused(
      { loops: { main: { model: { maxCalls: 2 } }, search: { model: { maxCalls: 3 } } } },
      "/loops/search/model/maxCalls",
    );
  });

  it("model.approve false when main's is true", async () => {
    await expectRefused(
      { loops: { main: { model: { approve: true } }, search: { model: { approve: false } } } },
      "/loops/search/model/approve",
    );
  });

  it("a refused PUT leaves an earlier loops config in place", async () => {
    const baseline = { loops: { main: { model: { maxCalls: 1 } } } };
    await expectRefused(
      { loops: { main: { model: { maxCalls: 1 } }, search: { model: { maxCalls: 5 } } } },
      "/loops/search/model/maxCalls",
      baseline,
    );
  });
});

describe("loop policies: shapes", () => {
  it("a source outside lib/, a duplicate source, an unknown field or a bad loop name is refused at its field", async () => {
    await expectRefused(
      { loops: { main: { lambda: { allow: ["plugins/x.ts"] } } } },
      "/loops/main/lambda/allow/0",
    );
    await expectRefused(
      { loops: { main: { lambda: { approve: ["lib/a.ts", "lib/a.ts:main"] } } } },
      "/loops/main/lambda/approve/1",
    );
    await expectRefused({ loops: { main: { model: { models: ["m", "m"] } } } }, "/loops/main/model/models/1");
    await expectRefused({ loops: { main: { model: { max: 1 } } } }, "/loops/main/model");
    await expectRefused({ loops: { "bad name": {} } }, "/loops/bad name");
    await expectRefused({ recovery: { retries: 1 } }, "/recovery");
  });

  it("model names are 1–200 characters", async () => {
    await stored({ loops: { main: { model: { models: ["m".repeat(200)] } } } });
    await expectRefused(
      { loops: { main: { model: { models: ["m".repeat(201)] } } } },
      "/loops/main/model/models/0",
    );
    await expectRefused({ loops: { main: { model: { models: [""] } } } }, "/loops/main/model/models/0");
  });
});

describe("loop policies: limits", () => {
  it("model.maxCalls: hostModelCallsPerInvocation passes, one more is refused", async () => {
    const max = LIMITS.hostModelCallsPerInvocation;
    const config = await stored({
      loops: { main: { model: { maxCalls: max } }, search: { model: { maxCalls: 0 } } },
    });
    expect(loopPolicy(config, "main").model.maxCalls).toBe(max);
    expect(loopPolicy(config, "search").model.maxCalls).toBe(0);
    await expectRefused({ loops: { main: { model: { maxCalls: max + 1 } } } }, "/loops/main/model/maxCalls");
    await expectRefused({ loops: { main: { model: { maxCalls: -1 } } } }, "/loops/main/model/maxCalls");
    await expectRefused({ loops: { main: { model: { maxCalls: 1.5 } } } }, "/loops/main/model/maxCalls");
  });

  it("recovery.structuralRetries: the limit passes, one more is refused", async () => {
    const max = LIMITS.structuralRetries;
    expect(structuralRetries(await stored({ recovery: { structuralRetries: max } }))).toBe(max);
    await expectRefused({ recovery: { structuralRetries: max + 1 } }, "/recovery/structuralRetries");
    await expectRefused({ recovery: { structuralRetries: -1 } }, "/recovery/structuralRetries");
  });

  it("loopPolicies loops pass, one more is refused", async () => {
    const config = await stored({ loops: emptyLoops(LIMITS.loopPolicies) });
    expect(Object.keys(config.loops ?? {})).toHaveLength(LIMITS.loopPolicies);
    await expectRefused({ loops: emptyLoops(LIMITS.loopPolicies + 1) }, "/loops");
  });

  it("loopPolicySources entries per list pass, one more is refused", async () => {
    // 32 loops of 50 full lists would exceed the config's own byte limit, so one loop carries them.
    const n = LIMITS.loopPolicySources;
    const full = {
      loops: {
        main: { lambda: { allow: sources(n), approve: sources(n) }, model: { models: modelNames(n) } },
      },
    };
    expect(JSON.stringify(full).length).toBeLessThan(LIMITS.configBytes);
    const config = await stored(full);
    expect(loopPolicy(config, "main").lambda.allow).toHaveLength(n);
    expect(loopPolicy(config, "main").lambda.approve).toHaveLength(n);
    expect(loopPolicy(config, "main").model.models).toHaveLength(n);
    await expectRefused(
      { loops: { main: { lambda: { allow: sources(n + 1) } } } },
      "/loops/main/lambda/allow",
    );
    await expectRefused(
      { loops: { main: { lambda: { approve: sources(n + 1) } } } },
      "/loops/main/lambda/approve",
    );
    await expectRefused(
      { loops: { main: { model: { models: modelNames(n + 1) } } } },
      "/loops/main/model/models",
    );
  });
});

interface JsonSchema {
  $ref?: string;
  description?: string;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
}

describe("docs/request-hooks.md", () => {
  it("the Loop policies example is accepted and research keeps main's lambda without model calls", async () => {
    const [example] = codeBlocks(section("request-hooks", "## Loop policies")).filter(
      (block) => block.language === "json",
    );
    const config = await stored(JSON.parse(example?.body ?? "null") as Record<string, unknown>);
    expect(loopPolicy(config, "main")).toMatchObject({
      lambda: { allow: ["lib/search.ts:search"] },
      model: { allow: true, maxCalls: 2 },
    });
    expect(loopPolicy(config, "research")).toMatchObject({
      lambda: { allow: ["lib/search.ts:search"], approve: [] },
      model: { allow: false },
    });
    expect(structuralRetries(config)).toBe(1);
  });
});

describe("the OpenAPI document", () => {
  it("describes loops and recovery in the config PUT body, with their descriptions and bounds", async () => {
    const doc = await json<{
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>
      >;
      components?: { schemas?: Record<string, JsonSchema> };
    }>(await call("GET", "/v1/openapi.json", { key: null }), 200);
    const deref = (schema: JsonSchema | undefined): JsonSchema | undefined => {
      const ref = schema?.$ref;
      if (ref === undefined) return schema;
      return deref(doc.components?.schemas?.[ref.replace("#/components/schemas/", "")]);
    };
    const body = deref(
      doc.paths["/v1/workspaces/{ws}/config"]?.put?.requestBody?.content["application/json"]?.schema,
    );
    const loops = deref(body?.properties?.loops);
    const recovery = deref(body?.properties?.recovery);
    const { loops: loopsField, recovery: recoveryField } = WorkspaceConfigDocument.shape;
    expect(loopsField.description).toContain("narrow");
    expect(recoveryField.description).toContain("structuralRetries");
    expect(loops?.description).toBe(loopsField.description);
    expect(recovery?.description).toBe(recoveryField.description);

    const policy = deref(
      typeof loops?.additionalProperties === "object" ? loops.additionalProperties : undefined,
    );
    const model = deref(policy?.properties?.model);
    expect(model?.properties?.maxCalls?.maximum).toBe(LIMITS.hostModelCallsPerInvocation);
    expect(model?.properties?.maxCalls?.description).toContain("rayrun.model calls");
    expect(recovery?.properties?.structuralRetries?.maximum).toBe(LIMITS.structuralRetries);
    expect(recovery?.properties?.structuralRetries?.description).toContain("fresh sandbox");
  });
});
