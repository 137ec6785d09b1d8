// The request hook: one test per rule of the request-hook contract, named for it.
// Files are deployed through the API (draft → test → deploy); the hook runs
// through `runRequestHook` with the test Worker's real D1, R2 and
// WorkspaceObject.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { FUEL_PER_MS } from "../../../shared/llm/request-hook";
import { requestHookRecords } from "../../../shared/llm/request-hook-records";
import {
  deployLib,
  deployUntested,
  failed,
  fakeOpenai,
  hookConfig,
  hookWorkspace,
  providerReceived,
  runHook,
  sampleRequest,
  setConfig,
  TAGGING_HOOK,
  transformed,
  type HookWorkspace,
} from "./harness";

const POLICY = "lib/request-policy.ts";

/** A workspace whose `lib/request-policy.ts` is `source`, deployed, with the hook configured. */
async function withHook(
  source: string,
  hook: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
): Promise<HookWorkspace> {
  const w = await hookWorkspace();
  await deployLib(w, POLICY, source);
  await setConfig(w, { pre_llm_hook: hookConfig(hook), ...config });
  return w;
}

/** The loop a TAGGING_HOOK saw, or null when the hook did not run. */
async function taggedLoop(w: HookWorkspace, loop: string): Promise<string | null> {
  const outcome = await runHook(w, loop);
  if (outcome.kind === "skipped") return null;
  return transformed(outcome).options.dynamicInstructions ?? "";
}

describe("Contract", () => {
  it("the lambda receives one JSON-safe object { request, loop } with loop.name main", async () => {
    const w = await withHook(`
      export function transform(input) {
        return { ...input.request, system: JSON.stringify(input) };
      }`);
    const request = sampleRequest();
    const out = transformed(await runHook(w, "main", request));
    expect(JSON.parse(out.system ?? "")).toStrictEqual({ request, loop: { name: "main" } });
  });

  it("loop.name is the current inner-loop name", async () => {
    const w = await withHook(TAGGING_HOOK);
    expect(await taggedLoop(w, "researcher")).toBe("hooked:researcher");
    expect(await taggedLoop(w, "main")).toBe("hooked:main");
  });

  it("an async transform is awaited (microtasks and chained promises settle before the result is read)", async () => {
    const w = await withHook(`
      export async function transform({ request }) {
        await null;
        const system = await Promise.resolve("async:").then((p) => p + request.system);
        return { ...request, system };
      }`);
    expect(transformed(await runHook(w, "main")).system).toBe("async:You are helpful.");
  });

  it("source names a function after ':'; an omitted function name means main", async () => {
    const w = await hookWorkspace();
    await deployLib(
      w,
      POLICY,
      `export function main({ request }) { return { ...request, system: "from main" }; }
       export function transform({ request }) { return { ...request, system: "from transform" }; }`,
    );
    await setConfig(w, { pre_llm_hook: { source: POLICY, scope: "all" } });
    expect(transformed(await runHook(w, "main")).system).toBe("from main");
    await setConfig(w, { pre_llm_hook: { source: `${POLICY}:transform`, scope: "all" } });
    expect(transformed(await runHook(w, "main")).system).toBe("from transform");
  });

  it("the contract example returns the complete request unchanged, with or without system", async () => {
    // `system: request.system` is undefined when the request has none: such
    // object members are absent, as in JSON.stringify.
    const w = await withHook(`
      export async function transform({ request, loop }) {
        return {
          system: request.system,
          messages: request.messages,
          tools: request.tools,
          options: request.options,
        };
      }`);
    const { model: _model, ...withSystem } = sampleRequest();
    expect(transformed(await runHook(w, "main", sampleRequest()))).toStrictEqual(withSystem);
    const { system: _system, ...noSystem } = withSystem;
    const out = transformed(await runHook(w, "main", noSystem));
    expect(out).toStrictEqual(noSystem);
    expect(out).not.toHaveProperty("system");
  });

  it("request.options carries maxTokens, temperature, topP, thinkingBudget, reasoning, dynamicInstructions, providerParams", async () => {
    const w = await withHook(`
      export function transform({ request }) {
        const o = request.options;
        return {
          ...request,
          options: {
            maxTokens: o.maxTokens * 2,
            temperature: 0,
            topP: 0.5,
            thinkingBudget: 1024,
            reasoning: { effort: "low" },
            dynamicInstructions: "Policy: cite sources.",
            providerParams: { seed: 7, ...o.providerParams },
          },
        };
      }`);
    const request = sampleRequest({ options: { maxTokens: 100, providerParams: { user: "u1" } } });
    expect(transformed(await runHook(w, "main", request)).options).toStrictEqual({
      maxTokens: 200,
      temperature: 0,
      topP: 0.5,
      thinkingBudget: 1024,
      reasoning: { effort: "low" },
      dynamicInstructions: "Policy: cite sources.",
      providerParams: { seed: 7, user: "u1" },
    });
  });

  it("Example: present just two existing tool schemas on ordinary conversational calls", async () => {
    const w = await withHook(`
export function transform({ request }) {
  return {
    ...request,
    tools: request.tools.filter((tool) =>
      tool.name === 'fs_read' || tool.name === 'fs_write'
    ),
  }
}`);
    const request = sampleRequest();
    const out = transformed(await runHook(w, "main", request));
    expect(out.tools.map((t) => t.name)).toStrictEqual(["fs_read", "fs_write"]);
    expect(out.tools).toStrictEqual(request.tools.slice(0, 2));
    expect({ ...out, tools: [] }).toStrictEqual({ ...request, tools: [] });
  });
});

const FAST_RAG = `
export async function enrichMessages({ messages, loop }) {
  const context = { role: "user", content: "Retrieved for " + loop + ": the office opens at 9." };
  return { messages: [context, ...messages] };
}
export function broken() { throw new Error("index unavailable"); }
export function notMessages() { return { messages: [{ role: "system", content: "not a conversational role" }] }; }
`;

const RAG_HOOK = (lambdaFunction: string) => `
export async function transform({ request, loop }) {
  const enrichment = await rayrun.lambda({
    source: 'lib/fast-rag.ts:${lambdaFunction}',
    args: {
      messages: request.messages,
      loop: loop.name,
    },
  })

  return {
    ...request,
    messages: enrichment.messages,
  }
}`;

async function ragWorkspace(lambdaFunction: string, sysLambda: boolean | "unset" = true) {
  const w = await hookWorkspace();
  await deployLib(w, "lib/fast-rag.ts", FAST_RAG);
  await deployLib(w, POLICY, RAG_HOOK(lambdaFunction));
  await setConfig(w, {
    pre_llm_hook: hookConfig(),
    ...(sysLambda === "unset" ? {} : { code_execution: { sys_lambda: sysLambda } }),
  });
  return w;
}

describe("Fast RAG with an existing lambda", () => {
  it("the documented example returns the enriched messages with the rest of the request unchanged", async () => {
    const w = await ragWorkspace("enrichMessages");
    const request = sampleRequest();
    const out = transformed(await runHook(w, "researcher", request));
    expect(out.messages).toStrictEqual([
      { role: "user", content: "Retrieved for researcher: the office opens at 9." },
      ...request.messages,
    ]);
    expect({ ...out, messages: [] }).toStrictEqual({ ...request, messages: [] });
  });

  it("a retrieval failure fails that call closed rather than sending the un-enriched original request", async () => {
    const w = await ragWorkspace("broken");
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_error");
    expect(failure.message).toMatch(/lib\/fast-rag\.ts:broken failed .*index unavailable/);
  });

  it("the retrieval lambda must return valid conversational messages", async () => {
    const w = await ragWorkspace("notMessages");
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_invalid_return");
    expect(failure.message).toMatch(/\/messages\/0\/role/);
  });
});

describe("Configuration: scope", () => {
  it('scope "all" runs for main and every current or future inner loop', async () => {
    const w = await withHook(TAGGING_HOOK, { scope: "all" });
    for (const loop of ["main", "researcher", "a-loop-nobody-declared.yet"]) {
      expect(await taggedLoop(w, loop)).toBe(`hooked:${loop}`);
    }
  });

  it('scope "main" runs for main only', async () => {
    const w = await withHook(TAGGING_HOOK, { scope: "main" });
    expect(await taggedLoop(w, "main")).toBe("hooked:main");
    expect(await taggedLoop(w, "researcher")).toBeNull();
  });

  it('scope "loops" targets named inner loops that need not exist yet, and not main', async () => {
    const w = await withHook(TAGGING_HOOK, { scope: "loops", loops: ["researcher", "reviewer"] });
    expect(await taggedLoop(w, "researcher")).toBe("hooked:researcher");
    expect(await taggedLoop(w, "reviewer")).toBe("hooked:reviewer");
    expect(await taggedLoop(w, "writer")).toBeNull();
    expect(await taggedLoop(w, "main")).toBeNull();
  });

  it("include_main: true with scope loops also runs the hook for Main", async () => {
    const w = await withHook(TAGGING_HOOK, { scope: "loops", loops: ["researcher"], include_main: true });
    expect(await taggedLoop(w, "main")).toBe("hooked:main");
    expect(await taggedLoop(w, "researcher")).toBe("hooked:researcher");
    expect(await taggedLoop(w, "reviewer")).toBeNull();
  });

  it("no pre_llm_hook: the call is skipped and the request goes as given", async () => {
    const w = await hookWorkspace();
    await deployLib(w, POLICY, TAGGING_HOOK);
    expect(await runHook(w, "main")).toStrictEqual({ kind: "skipped" });
  });

  it("does not run for a direct model call (rayrun.model) or automatic history compaction (bypass)", async () => {
    const w = await withHook(`export function transform() { throw new Error("must not run"); }`);
    expect(await runHook(w, "main", sampleRequest(), { bypass: true })).toStrictEqual({ kind: "skipped" });
    expect(failed(await runHook(w, "main")).code).toBe("request_hook_error");
  });
});

/** A hook returning case `request.options.dynamicInstructions` of a table of bad results. */
const BAD_RETURNS = `
const fine = (request) => { const { dynamicInstructions, ...options } = request.options; return { ...request, options }; };
const cases = {
  outer: (input) => input,
  nothing: () => undefined,
  nullValue: () => null,
  string: () => "a request",
  functionMember: (input) => ({ ...fine(input.request), tools: [{ name: "x", inputSchema: {}, run() {} }] }),
  functionValue: (input) => ({ ...fine(input.request), system: () => "hi" }),
  nan: (input) => { const r = fine(input.request); r.options.temperature = NaN; return r; },
  infinity: (input) => { const r = fine(input.request); r.options.maxTokens = Infinity; return r; },
  undefinedElement: (input) => { const r = fine(input.request); r.messages = [r.messages[0], undefined]; return r; },
  hole: (input) => { const r = fine(input.request); r.messages = [r.messages[0], , r.messages[0]]; return r; },
  date: (input) => ({ ...fine(input.request), system: new Date(0) }),
  map: (input) => ({ ...fine(input.request), tools: new Map() }),
  cycle: (input) => { const r = fine(input.request); r.options.providerParams = { self: null }; r.options.providerParams.self = r.options.providerParams; return r; },
  missingMessages: (input) => { const { messages, ...rest } = fine(input.request); return rest; },
  missingOptions: (input) => { const { options, ...rest } = fine(input.request); return rest; },
  unknownField: (input) => ({ ...fine(input.request), stream: true }),
  systemRole: (input) => ({ ...fine(input.request), messages: [{ role: "system", content: "x" }] }),
  numberContent: (input) => ({ ...fine(input.request), messages: [{ role: "user", content: 42 }] }),
  imageBlock: (input) => ({ ...fine(input.request), messages: [{ role: "user", content: [{ type: "image", url: "x" }] }] }),
  toolBadName: (input) => ({ ...fine(input.request), tools: [{ name: "fs read", inputSchema: {} }] }),
  toolNoSchema: (input) => ({ ...fine(input.request), tools: [{ name: "fs_read" }] }),
  toolDuplicate: (input) => ({ ...fine(input.request), tools: [{ name: "a", inputSchema: {} }, { name: "a", inputSchema: {} }] }),
  reservedParam: (input) => { const r = fine(input.request); r.options.providerParams = { stream: true }; return r; },
  orphanResult: (input) => { const r = fine(input.request); r.messages = [r.messages[0], r.messages[2]]; return r; },
  unansweredUse: (input) => { const r = fine(input.request); r.messages = [...r.messages.slice(0, 2), { role: "user", content: "next" }]; return r; },
  useInUserMessage: (input) => { const r = fine(input.request); r.messages = [{ role: "user", content: r.messages[1].content }]; return r; },
  never: () => new Promise(() => {}),
  tooLarge: (input) => ({ ...fine(input.request), system: "x".repeat(256 * 1024) }),
  duplicateUseId: (input) => { const r = fine(input.request); r.messages = [...r.messages, { role: "assistant", content: r.messages[1].content }]; return r; },
};
export function transform(input) {
  return cases[input.request.options.dynamicInstructions](input);
}`;

describe("The lambda must return a complete replacement request", () => {
  let w: HookWorkspace | undefined;
  const badReturn = async (name: string) => {
    w ??= await withHook(BAD_RETURNS);
    const request = sampleRequest({ options: { maxTokens: 256, dynamicInstructions: name } });
    const failure = failed(await runHook(w, "main", request));
    expect(failure.code, failure.message).toBe("request_hook_invalid_return");
    return failure.message;
  };

  it("returning the outer { request, loop } object fails, saying so", async () => {
    expect(await badReturn("outer")).toMatch(/not \{ request, loop \}/);
  });

  it("returning nothing, null or a non-object fails", async () => {
    for (const name of ["nothing", "nullValue", "string"]) {
      expect(await badReturn(name)).toMatch(/^The hook returned an invalid request: \/: /);
    }
  });

  it("Returned values must be JSON: functions, NaN, Infinity, undefined elements, holes, class instances and cycles fail", async () => {
    expect(await badReturn("functionMember")).toMatch(/is a function, which is not JSON/);
    expect(await badReturn("functionValue")).toMatch(/is a function, which is not JSON/);
    expect(await badReturn("nan")).toMatch(/is NaN, which is not JSON/);
    expect(await badReturn("infinity")).toMatch(/is Infinity, which is not JSON/);
    expect(await badReturn("undefinedElement")).toMatch(/is undefined, which is not JSON/);
    expect(await badReturn("hole")).toMatch(/hole in a sparse array/);
    expect(await badReturn("date")).toMatch(/Date, not a plain object/);
    expect(await badReturn("map")).toMatch(/Map, not a plain object/);
    expect(await badReturn("cycle")).toMatch(/circular|nests deeper/);
  });

  it("a promise that never settles, or a replacement over LIMITS.outputBytes of JSON, fails", async () => {
    expect(await badReturn("never")).toMatch(/never settled/);
    expect(await badReturn("tooLarge")).toMatch(new RegExp(`larger than ${LIMITS.outputBytes} bytes`));
  });

  it("a complete request has messages, tools and options and nothing else", async () => {
    expect(await badReturn("missingMessages")).toMatch(/\/messages/);
    expect(await badReturn("missingOptions")).toMatch(/\/options/);
    expect(await badReturn("unknownField")).toMatch(/stream/);
  });

  it("valid conversational message shapes: roles user/assistant, string or block content, known block types", async () => {
    expect(await badReturn("systemRole")).toMatch(/\/messages\/0\/role/);
    expect(await badReturn("numberContent")).toMatch(/\/messages\/0\/content/);
    expect(await badReturn("imageBlock")).toMatch(/\/messages\/0\/content\/0/);
  });

  it("valid tool definitions: provider-safe unique names and an input schema; no reserved providerParams", async () => {
    expect(await badReturn("toolBadName")).toMatch(/\/tools\/0\/name/);
    expect(await badReturn("toolNoSchema")).toMatch(/\/tools\/0\/inputSchema/);
    expect(await badReturn("toolDuplicate")).toMatch(/already used/);
    expect(await badReturn("reservedParam")).toMatch(/providerParams\/stream/);
  });

  it("preserve valid tool-use/tool-result pairing", async () => {
    expect(await badReturn("orphanResult")).toMatch(/answers no tool_use/);
    expect(await badReturn("unansweredUse")).toMatch(/not answered/);
    expect(await badReturn("useInUserMessage")).toMatch(/belong in assistant messages/);
    expect(await badReturn("duplicateUseId")).toMatch(/already used/);
  });
});

describe("Boundaries and failures: fail closed", () => {
  it("missing source: a config naming a file never deployed is accepted and fails each call until it is deployed", async () => {
    const w = await hookWorkspace();
    await setConfig(w, { pre_llm_hook: hookConfig({ source: "lib/later.ts:transform" }) });
    const failure = failed(await runHook(w, "main"));
    expect(failure).toMatchObject({ code: "request_hook_source_missing", run: { revisionId: null } });
    expect(failure.message).toMatch(/lib\/later\.ts has no active deployment/);
    // A shadow deployment is not the active one.
    await deployLib(w, "lib/later.ts", TAGGING_HOOK, "shadow");
    expect(failed(await runHook(w, "main")).code).toBe("request_hook_source_missing");
    const revision = await deployLib(w, "lib/later.ts", TAGGING_HOOK);
    const outcome = await runHook(w, "main");
    expect(transformed(outcome).options.dynamicInstructions).toBe("hooked:main");
    expect(outcome).toMatchObject({
      run: { revisionId: revision, path: "lib/later.ts", exportName: "transform" },
    });
  });

  it("missing function: the file is deployed but exports no such function (a constant does not count)", async () => {
    const w = await withHook(`
      export function main({ request }) { return request; }
      export const transform = "not a function";`);
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_function_missing");
    expect(failure.message).toMatch(/exports no function transform/);
  });

  it("execution error: a throwing hook fails the call closed with its message", async () => {
    const w = await withHook(`
      export function transform() { throw new TypeError("policy store unavailable"); }`);
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_error");
    expect(failure.message).toMatch(/TypeError: policy store unavailable/);
  });

  it("a top level that throws fails closed too", async () => {
    const w = await hookWorkspace();
    // Compiling evaluates the top level once without `rayrun`: throw only where it exists.
    await deployUntested(
      w,
      POLICY,
      `if (typeof rayrun !== "undefined") throw new Error("bad module");
       export function transform({ request }) { return request; }`,
    );
    await setConfig(w, { pre_llm_hook: hookConfig() });
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_error");
    expect(failure.message).toMatch(/bad module/);
  });

  it("timeout: CPU work stops at the fuel budget of timeout_ms", async () => {
    const w = await withHook(`export function transform() { for (;;) {} }`, { timeout_ms: 50 });
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toContain(`(${50 * FUEL_PER_MS} units)`);
    expect(failure.run.fuelUsed).toBeGreaterThanOrEqual(50 * FUEL_PER_MS);
    expect(failure.run.fuelUsed).toBeLessThan(51 * FUEL_PER_MS);
  });

  it("timeout: an endless top level is bounded by the same budget", async () => {
    const w = await hookWorkspace();
    // Compiling evaluates the top level once without `rayrun`: loop only where it exists.
    await deployUntested(
      w,
      POLICY,
      `if (typeof rayrun !== "undefined") { for (;;) {} }
       export function transform({ request }) { return request; }`,
    );
    await setConfig(w, { pre_llm_hook: hookConfig({ timeout_ms: 20 }) });
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toContain(`top level used its whole fuel budget (${20 * FUEL_PER_MS} units)`);
    expect(failure.message).toContain("ran out of time (20 ms)");
  });

  it("timeout: catching nothing helps — a hook that swallows the fuel interrupt still times out", async () => {
    const w = await withHook(
      `export function transform({ request }) {
         try { for (;;) {} } catch { }
         return request;
       }`,
      { timeout_ms: 20 },
    );
    expect(failed(await runHook(w, "main")).code).toBe("request_hook_timeout");
  });

  it("timeout_ms defaults to 5000 ms of fuel when unset", async () => {
    const w = await withHook(`export function transform() { for (;;) {} }`);
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toContain(`(${LIMITS.requestHookTimeoutMs * FUEL_PER_MS} units)`);
  });

  it("timeout_ms is always capped by limits.execution_timeout_ms", async () => {
    const w = await withHook(
      `export function transform() { for (;;) {} }`,
      { timeout_ms: 60_000 },
      { limits: { execution_timeout_ms: 30 } },
    );
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.message).toContain(`ran out of time (30 ms)`);
    expect(failure.message).toContain(`(${30 * FUEL_PER_MS} units)`);
  });
});

describe("Each hook invocation runs fresh", () => {
  const COUNTING = `
    let calls = 0;
    const shared = { seen: [] };
    export function transform({ request }) {
      calls++;
      globalThis.visits = (globalThis.visits ?? 0) + 1;
      shared.seen.push(request.messages.length);
      const polluted = "extra" in Array.prototype;
      Array.prototype.extra = "left behind";
      rayrun.log.info("transform ran", { calls, visits: globalThis.visits, seen: shared.seen, polluted });
      return request;
    }`;

  it("When the established bounded structural recovery is enabled, a later retry reruns the hook", async () => {
    const w = await withHook(COUNTING);
    const requestId = crypto.randomUUID();
    const first = await runHook(w, "main", sampleRequest(), { requestId });
    const retry = await runHook(w, "main", sampleRequest(), { requestId });
    for (const outcome of [first, retry]) {
      transformed(outcome);
      expect(outcome).toMatchObject({ run: { logs: [{ level: "info", message: "transform ran" }] } });
    }
    expect(first).not.toBe(retry);
  });

  it("do not rely on module/global state persisting between tool rounds", async () => {
    const w = await withHook(COUNTING);
    const rounds = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await runHook(w, "main");
      transformed(outcome);
      if (outcome.kind !== "transformed") throw new Error("unreachable");
      rounds.push(outcome.run.logs[0]?.data);
    }
    for (const data of rounds) {
      expect(data).toStrictEqual({ calls: 1, visits: 1, seen: [3], polluted: false });
    }
  });
});

describe("nested rayrun.lambda: independently gated by code_execution.sys_lambda", () => {
  it("gate off (unset or false): the nested call rejects, and uncaught it fails the call closed", async () => {
    for (const sysLambda of ["unset", false] as const) {
      const w = await ragWorkspace("enrichMessages", sysLambda);
      const failure = failed(await runHook(w, "main"));
      expect(failure.code).toBe("request_hook_error");
      expect(failure.message).toMatch(/rayrun\.lambda is disabled: .*code_execution\.sys_lambda gate is off/);
    }
  });

  it("gate off: a hook that catches the rejection sees it and decides itself", async () => {
    const w = await withHook(`
      export async function transform({ request }) {
        try {
          await rayrun.lambda({ source: "lib/fast-rag.ts:enrichMessages", args: {} });
          return { ...request, system: "lambda ran" };
        } catch (error) {
          return { ...request, system: "refused: " + error.message };
        }
      }`);
    await deployLib(w, "lib/fast-rag.ts", FAST_RAG);
    expect(transformed(await runHook(w, "main")).system).toMatch(/^refused: rayrun\.lambda is disabled/);
  });

  it("gate on: the nested lambda runs with its args", async () => {
    const w = await ragWorkspace("enrichMessages", true);
    expect(transformed(await runHook(w, "main")).messages[0]).toStrictEqual({
      role: "user",
      content: "Retrieved for main: the office opens at 9.",
    });
  });

  it("source authorization: only an exported function of a lib/ file with an active deployment runs", async () => {
    const w = await hookWorkspace();
    await deployLib(
      w,
      POLICY,
      `
      export async function transform({ request }) {
        const sources = request.options.dynamicInstructions.split(",");
        const results = [];
        for (const source of sources) {
          try {
            results.push(JSON.stringify(await rayrun.lambda({ source, args: { messages: [], loop: "x" } })));
          } catch (error) {
            results.push("refused: " + error.message);
          }
        }
        return { ...request, system: results.join("\\n") };
      }`,
    );
    await deployLib(w, "lib/fast-rag.ts", FAST_RAG);
    await deployLib(w, "lib/shadow-only.ts", FAST_RAG, "shadow");
    await setConfig(w, { pre_llm_hook: hookConfig(), code_execution: { sys_lambda: true } });
    const sources = [
      "lib/fast-rag.ts:enrichMessages",
      "lib/never-deployed.ts:enrichMessages",
      "lib/shadow-only.ts:enrichMessages",
      "lib/fast-rag.ts:nothingHere",
      "plugins/fast-rag.ts",
      "../lib/fast-rag.ts",
    ];
    const request = sampleRequest({ options: { dynamicInstructions: sources.join(",") } });
    const lines = (transformed(await runHook(w, "main", request)).system ?? "").split("\n");
    expect(lines[0]).toBe(
      JSON.stringify({ messages: [{ role: "user", content: "Retrieved for x: the office opens at 9." }] }),
    );
    expect(lines.slice(1)).toStrictEqual([
      "refused: rayrun.lambda: lib/never-deployed.ts is not an authorized source (no active deployment)",
      "refused: rayrun.lambda: lib/shadow-only.ts is not an authorized source (no active deployment)",
      "refused: rayrun.lambda: lib/fast-rag.ts exports no function nothingHere",
      'refused: rayrun.lambda: "plugins/fast-rag.ts" is not a lib/ source',
      'refused: rayrun.lambda: "../lib/fast-rag.ts" is not a lib/ source',
    ]);
  });

  it("the nested lambda gets no capabilities of its own (no rayrun, so no recursion)", async () => {
    const w = await hookWorkspace();
    await deployLib(
      w,
      "lib/nested.ts",
      `export function probeNamespace() { return { hasRayrun: typeof rayrun !== "undefined" }; }`,
    );
    await deployLib(
      w,
      POLICY,
      `export async function transform({ request }) {
         const seen = await rayrun.lambda({ source: "lib/nested.ts:probeNamespace", args: null });
         return { ...request, system: JSON.stringify(seen) };
       }`,
    );
    await setConfig(w, { pre_llm_hook: hookConfig(), code_execution: { sys_lambda: true } });
    expect(transformed(await runHook(w, "main")).system).toBe('{"hasRayrun":false}');
  });

  it("the nested lambda's CPU work is bounded by what is left of the hook's time", async () => {
    const w = await hookWorkspace();
    await deployLib(w, "lib/spin.ts", `export function spin() { for (;;) {} }`);
    await deployLib(
      w,
      POLICY,
      `export async function transform({ request }) {
         try { await rayrun.lambda({ source: "lib/spin.ts:spin", args: null }); }
         catch (error) { return { ...request, system: error.message }; }
         return request;
       }`,
    );
    await setConfig(w, {
      pre_llm_hook: hookConfig({ timeout_ms: 1000 }),
      code_execution: { sys_lambda: true },
    });
    // The lambda gets at most what is left of 1000 ms as fuel, runs out and fails inside the hook.
    const out = transformed(await runHook(w, "main"));
    expect(out.system).toMatch(
      /^rayrun\.lambda lib\/spin\.ts:spin failed \(hook_timeout\): the hook used its whole fuel budget \(\d+ units\)$/,
    );
    const budget = Number(/\((\d+) units\)/.exec(out.system ?? "")?.[1]);
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThanOrEqual(1000 * FUEL_PER_MS);
  });
});

describe("rayrun.model: a direct model call", () => {
  const MODEL_HOOK = `
    export async function transform({ request }) {
      rayrun.log.info("hook ran");
      const reply = await rayrun.model({
        provider: "openai",
        request: { model: "summarizer", messages: [{ role: "user", content: "summarize the thread" }] },
      });
      return { ...request, system: request.system + " Summary: " + reply.choices[0].message.content };
    }`;

  it("rayrun.model inside a hook takes the direct path and does not recurse", async () => {
    const w = await hookWorkspace();
    await deployLib(w, POLICY, MODEL_HOOK);
    await setConfig(w, { pre_llm_hook: hookConfig(), providers: fakeOpenai(w) });
    const outcome = await runHook(w, "main");
    expect(transformed(outcome).system).toBe("You are helpful. Summary: echo: summarize the thread");
    // The hook ran once, and the provider got exactly the hook's direct request, untransformed.
    expect(outcome).toMatchObject({ run: { logs: [{ message: "hook ran" }] } });
    const received = await providerReceived(w);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      path: "/v1/chat/completions",
      body: { model: "summarizer", messages: [{ role: "user", content: "summarize the thread" }] },
    });
  });

  it("a provider the workspace does not configure rejects inside the hook and, uncaught, fails closed", async () => {
    const w = await withHook(MODEL_HOOK);
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_error");
    expect(failure.message).toMatch(/rayrun\.model: The workspace config names no openai provider/);
  });

  it("a provider error rejects inside the hook and, uncaught, fails closed", async () => {
    const w = await hookWorkspace();
    await deployLib(w, POLICY, MODEL_HOOK);
    await setConfig(w, { pre_llm_hook: hookConfig(), providers: fakeOpenai(w) });
    await fetch(`http://provider.test/${w.providerId}/_fail`, {
      method: "POST",
      body: JSON.stringify({ status: 500 }),
    });
    const failure = failed(await runHook(w, "main"));
    expect(failure.message).toMatch(/rayrun\.model: the provider answered HTTP 500/);
  });
});

describe("A hook cannot grant a tool or bypass authorization", () => {
  it("Changing request.tools changes only what the provider is shown: the outcome is the request and nothing else", async () => {
    // Tool execution keeps the loop's original enabled-tool snapshot: it is
    // not an input or output of the hook. All the hook can change is the
    // request the provider is shown, so that is all the outcome carries, and
    // the caller's own request object is left as it was.
    const w = await withHook(`
      export function transform({ request }) {
        request.tools.push({ name: "grant_admin", description: "not enabled", inputSchema: { type: "object" } });
        return request;
      }`);
    const request = sampleRequest();
    const before = structuredClone(request);
    const outcome = await runHook(w, "main", request);
    expect(transformed(outcome).tools.map((t) => t.name)).toStrictEqual([
      "fs_read",
      "fs_write",
      "web_search",
      "shell",
      "grant_admin",
    ]);
    expect(Object.keys(outcome).toSorted()).toStrictEqual(["kind", "request", "retried", "run"]);
    expect(request).toStrictEqual(before);
  });
});

describe("Hook failures are recorded as a local structural [Turn error]", () => {
  it("a transformed call's record: kind request_hook, stage transform, the loop, outcome continue, the logs", async () => {
    const w = await withHook(`
      export function transform({ request }) { rayrun.log.warn("trimmed", { kept: 2 }); return request; }`);
    const outcome = await runHook(w, "reviewer");
    if (outcome.kind === "skipped") throw new Error("the hook did not run");
    const [record] = requestHookRecords(w.ws, "reviewer", "req-1", outcome);
    if (record === undefined) throw new Error("no record");
    expect(record).toMatchObject({
      workspaceUid: w.ws,
      kind: "request_hook",
      target: `file:${POLICY}`,
      stage: "transform",
      channel: "active",
      outcome: "continue",
      code: null,
      revisionId: outcome.run.revisionId,
      requestId: "req-1",
      loop: "reviewer",
      plugin: null,
      turnError: false,
      attempt: 1,
      details: { logs: [{ level: "warn", message: "trimmed", data: { kept: 2 } }] },
    });
    expect(record.revisionId).toMatch(/.+/);
    expect(record.details).not.toHaveProperty("error");
  });

  it("a failed call's record: outcome error, the request_hook_* code, [Turn error] in details", async () => {
    const w = await withHook(`export function transform() { throw new Error("nope"); }`);
    const outcome = failed(await runHook(w, "main"));
    const [record] = requestHookRecords(w.ws, "main", "req-2", outcome);
    if (record === undefined) throw new Error("no record");
    expect(record).toMatchObject({
      kind: "request_hook",
      stage: "transform",
      loop: "main",
      outcome: "error",
      code: "request_hook_error",
      turnError: true,
      attempt: 1,
    });
    expect(record.details?.error).toMatch(/^\[Turn error\] .*nope/);
  });

  it("a missing source is recorded with no revision", async () => {
    const w = await hookWorkspace();
    await setConfig(w, { pre_llm_hook: hookConfig() });
    const [record] = requestHookRecords(w.ws, "main", "req-3", failed(await runHook(w, "main")));
    expect(record).toMatchObject({ code: "request_hook_source_missing", revisionId: null, fuelUsed: 0 });
    expect(record?.details?.error).toMatch(
      /^\[Turn error\] lib\/request-policy\.ts has no active deployment/,
    );
  });
});
