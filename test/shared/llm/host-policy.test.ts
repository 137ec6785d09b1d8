// Loops carry their own restrictions: each invocation's bridge is built from
// its loop's policy (`loops.<name>`, `main` the default an inner loop narrows),
// and a refused host call rejects with code host_call_forbidden in the hook.
import { describe, expect, it } from "vitest";
import {
  deployLib,
  failed,
  fakeOpenai,
  hookConfig,
  hookWorkspace,
  providerReceived,
  runHook,
  setConfig,
  transformed,
  type HookWorkspace,
} from "./harness";

/** Tries each host call in order and reports, per call, "ok" or the rejection's code. */
const PROBING_HOOK = `
const CALLS = {
  lookup: () => rayrun.lambda({ source: "lib/lookup.ts:lookup", args: "x" }),
  other: () => rayrun.lambda({ source: "lib/lookup.ts:other", args: "y" }),
  model: () => rayrun.model({ provider: "openai", request: { model: "gpt-test", messages: [{ role: "user", content: "hi" }] } }),
  otherModel: () => rayrun.model({ provider: "openai", request: { model: "gpt-other", messages: [{ role: "user", content: "hi" }] } }),
};
export async function transform({ request }) {
  const seen = [];
  for (const name of request.system.split(",")) {
    try { await CALLS[name](); seen.push("ok"); } catch (e) { seen.push(e.code ?? "no code: " + e.message); }
  }
  return { ...request, system: seen.join(",") };
}
export async function uncaught({ request }) {
  await CALLS.other();
  return request;
}`;

const LOOKUP = `export function lookup(a) { return { found: a }; }\nexport function other(a) { return a; }`;

async function workspace(loops: Record<string, unknown>, fn = "transform"): Promise<HookWorkspace> {
  const w = await hookWorkspace();
  await deployLib(w, "lib/lookup.ts", LOOKUP);
  await deployLib(w, "lib/request-policy.ts", PROBING_HOOK);
  await setConfig(w, {
    pre_llm_hook: hookConfig({ source: `lib/request-policy.ts:${fn}` }),
    code_execution: { sys_lambda: true },
    providers: fakeOpenai(w),
    loops,
  });
  return w;
}

/** What each named call came to in `loop`. */
async function probe(w: HookWorkspace, loop: string, calls: string[]): Promise<string[]> {
  const request = transformed(
    await runHook(w, loop, {
      messages: [{ role: "user", content: "hi" }],
      system: calls.join(","),
      tools: [],
      options: {},
    }),
  );
  return (request.system ?? "").split(",");
}

const TWO_LOOPS = {
  main: { lambda: { allow: ["lib/lookup.ts:lookup"] }, model: { models: ["gpt-test"], maxCalls: 1 } },
  research: { lambda: { allow: [] }, model: { allow: false } },
};

describe("loops carry their own restrictions", () => {
  it("lambda: a loop calls only the lib exports its policy allows; another loop is refused the same call", async () => {
    const w = await workspace(TWO_LOOPS);
    expect(await probe(w, "main", ["lookup", "other"])).toEqual(["ok", "host_call_forbidden"]);
    expect(await probe(w, "research", ["lookup", "other"])).toEqual([
      "host_call_forbidden",
      "host_call_forbidden",
    ]);
  });

  it("model: allowed per loop, only its models, and at most maxCalls per invocation", async () => {
    const w = await workspace(TWO_LOOPS);
    expect(await probe(w, "main", ["otherModel", "model", "model"])).toEqual([
      "host_call_forbidden",
      "ok",
      "host_call_forbidden",
    ]);
    expect(await probe(w, "research", ["model"])).toEqual(["host_call_forbidden"]);
    // Refused calls never reach the provider: one call in all.
    expect(await providerReceived(w)).toHaveLength(1);
  });

  it("the bridge is built per invocation: each run of main gets its own model call", async () => {
    const w = await workspace(TWO_LOOPS);
    expect(await probe(w, "main", ["model"])).toEqual(["ok"]);
    expect(await probe(w, "main", ["model"])).toEqual(["ok"]);
  });

  it("a loop without an entry inherits main's policy", async () => {
    const w = await workspace(TWO_LOOPS);
    expect(await probe(w, "summarizer", ["lookup", "other", "model", "model"])).toEqual([
      "ok",
      "host_call_forbidden",
      "ok",
      "host_call_forbidden",
    ]);
  });

  it("without any loops entry every deployed lib export and model call stays allowed", async () => {
    const w = await workspace({});
    expect(await probe(w, "research", ["lookup", "other", "model", "otherModel"])).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
  });

  it("an uncaught host_call_forbidden fails the request closed as request_hook_error", async () => {
    const w = await workspace(TWO_LOOPS, "uncaught");
    const outcome = failed(await runHook(w, "main"));
    expect(outcome.code).toBe("request_hook_error");
    expect(outcome.message).toMatch(/lib\/lookup\.ts:other is not allowed in loop "main"/);
  });
});
