// The `adf` global: `adf.sys_lambda` and `adf.model_invoke`, the names
// published examples use, are `rayrun.lambda` and `rayrun.model` themselves.
// Each rule runs one hook through both names against the same workspace and
// expects the same outcome, so a difference in arguments, answers or gates
// shows up as a difference here.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runRequestHook, type RequestHookOutcome } from "../../../shared/llm/request-hook";
import {
  deployLib,
  failed,
  fakeOpenai,
  hookConfig,
  hookWorkspace,
  providerReceived,
  runHook,
  sampleRequest,
  setConfig,
  transformed,
  type HookWorkspace,
} from "./harness";

type Names = "rayrun" | "adf";
const BOTH: readonly Names[] = ["rayrun", "adf"];

// The request's dynamicInstructions picks the names the hook calls through,
// so both runs use one deployed file; each outcome is reported in `system`.
const HOOK = `
const calls = (names) =>
  names === "adf"
    ? { lambda: (call) => adf.sys_lambda(call), model: (call) => adf.model_invoke(call) }
    : { lambda: (call) => rayrun.lambda(call), model: (call) => rayrun.model(call) };
const QUESTION = {
  provider: "openai",
  request: { model: "summarizer", messages: [{ role: "user", content: "summarize the thread" }] },
};
async function attempt(work) {
  try { return JSON.stringify(await work()); }
  catch (error) { return "refused (" + (error.code ?? "no code") + "): " + error.message; }
}
export async function ask({ request }) {
  const host = calls(request.options.dynamicInstructions);
  return { ...request, system: await attempt(() => host.model(QUESTION)) };
}
export async function lookUp({ request }) {
  const host = calls(request.options.dynamicInstructions);
  return { ...request, system: await attempt(() => host.lambda({ source: "lib/lookup.ts:lookup", args: "pricing" })) };
}
export async function askUncaught({ request }) {
  await calls(request.options.dynamicInstructions).model(QUESTION);
  return request;
}
export function inspect({ request }) {
  // Strict code throws here and sloppy code is ignored: either way nothing changes.
  try { adf.sys_lambda = null; } catch {}
  return {
    ...request,
    system: JSON.stringify({
      sameLambda: adf.sys_lambda === rayrun.lambda,
      sameModel: adf.model_invoke === rayrun.model,
      members: Object.keys(adf),
      frozen: Object.isFrozen(adf),
      type: typeof adf,
    }),
  };
}
export async function probeNested({ request }) {
  const seen = await rayrun.lambda({ source: "lib/lookup.ts:globals", args: null });
  return { ...request, system: JSON.stringify(seen) };
}`;

const LOOKUP = `
export function lookup(q) { return { found: "the answer to " + q }; }
export function globals() { return { adf: typeof adf, rayrun: typeof rayrun }; }`;

async function workspace(fn: string, config: Record<string, unknown> = {}): Promise<HookWorkspace> {
  const w = await hookWorkspace();
  await deployLib(w, "lib/lookup.ts", LOOKUP);
  await deployLib(w, "lib/request-policy.ts", HOOK);
  await setConfig(w, {
    pre_llm_hook: hookConfig({ source: `lib/request-policy.ts:${fn}` }),
    providers: fakeOpenai(w),
    ...config,
  });
  return w;
}

const through = (names: Names) => sampleRequest({ options: { dynamicInstructions: names } });

/** What the hook reported for each set of names. */
async function reports(w: HookWorkspace, loop = "main"): Promise<Record<Names, string>> {
  const [rayrun = "", adf = ""] = await Promise.all(
    BOTH.map(async (names) => transformed(await runHook(w, loop, through(names))).system ?? ""),
  );
  return { rayrun, adf };
}

describe("adf.model_invoke is rayrun.model", () => {
  it("a request hook using adf.model_invoke gets the same answer as with rayrun.model from the same provider", async () => {
    const w = await workspace("ask");
    const seen = await reports(w);
    // The fake provider stamps every completion with its own id and time: the rest is the same answer.
    const [viaRayrun, viaAdf] = [seen.rayrun, seen.adf].map((text) => ({
      ...JSON.parse(text),
      id: "-",
      created: 0,
    }));
    expect(viaAdf).toMatchObject({ choices: [{ message: { content: "echo: summarize the thread" } }] });
    expect(viaAdf).toStrictEqual(viaRayrun);
    // The provider got the same direct request from each.
    const received = await providerReceived(w);
    expect(received).toHaveLength(2);
    expect(received[0]).toStrictEqual(received[1]);
  });

  it("adf.model_invoke is refused by a loop policy as rayrun.model is, with host_call_forbidden", async () => {
    const w = await workspace("ask", { loops: { main: { model: { allow: false } } } });
    const seen = await reports(w);
    expect(seen.adf).toMatch(/^refused \(host_call_forbidden\): /);
    expect(seen.adf).toBe(seen.rayrun);
    expect(await providerReceived(w)).toHaveLength(0);
  });

  it("adf.model_invoke needs the same approval as rayrun.model: the request fails naming rayrun.model", async () => {
    const w = await workspace("askUncaught", { loops: { main: { model: { approve: true } } } });
    const outcomes: RequestHookOutcome[] = [];
    for (const names of BOTH) {
      const requestId = crypto.randomUUID();
      outcomes.push(
        await runRequestHook(
          env,
          {
            workspaceUid: w.ws,
            loop: "main",
            request: through(names),
            requestId,
            caller: { keyId: "key-aliases", actor: "aliases-test", approvalId: null },
          },
          { env, workspaceUid: w.ws, requestId },
        ),
      );
    }
    for (const outcome of outcomes) {
      const failure = failed(outcome);
      expect(failure.code).toBe("request_hook_approval_required");
      expect(failure.message).toMatch(/^rayrun\.model needs an approval/);
    }
    expect(await providerReceived(w)).toHaveLength(0);
  });
});

describe("adf.sys_lambda is rayrun.lambda", () => {
  it("with the sys_lambda gate on, adf.sys_lambda runs the lambda and answers as rayrun.lambda does", async () => {
    const w = await workspace("lookUp", { code_execution: { sys_lambda: true } });
    const seen = await reports(w);
    expect(seen.adf).toBe(JSON.stringify({ found: "the answer to pricing" }));
    expect(seen.adf).toBe(seen.rayrun);
  });

  it("with the gate off, adf.sys_lambda is refused the same way, with the same message", async () => {
    const w = await workspace("lookUp");
    const seen = await reports(w);
    expect(seen.adf).toMatch(/rayrun\.lambda is disabled: .*code_execution\.sys_lambda gate is off/);
    expect(seen.adf).toBe(seen.rayrun);
  });

  it("a loop policy refuses adf.sys_lambda as it refuses rayrun.lambda, with host_call_forbidden", async () => {
    const w = await workspace("lookUp", {
      code_execution: { sys_lambda: true },
      loops: { main: { lambda: { allow: [] } } },
    });
    const seen = await reports(w);
    expect(seen.adf).toMatch(/^refused \(host_call_forbidden\): /);
    expect(seen.adf).toBe(seen.rayrun);
  });

  it("the nested lambda gets neither rayrun nor adf", async () => {
    const w = await workspace("probeNested", { code_execution: { sys_lambda: true } });
    expect(JSON.parse(transformed(await runHook(w, "main")).system ?? "")).toStrictEqual({
      adf: "undefined",
      rayrun: "undefined",
    });
  });
});

describe("the adf global", () => {
  it("is frozen, has exactly sys_lambda and model_invoke, and they are rayrun's own functions", async () => {
    const w = await workspace("inspect");
    expect(JSON.parse(transformed(await runHook(w, "main")).system ?? "")).toStrictEqual({
      sameLambda: true,
      sameModel: true,
      members: ["sys_lambda", "model_invoke"],
      frozen: true,
      type: "object",
    });
  });
});
