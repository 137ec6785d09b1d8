// Dev-only Worker for `npm run bench:stages` (bench/stages.ts): runs tool-adapter
// stages with the gateway's own sandbox (workerd's wasm, memory images), so
// that their cost in workerd can be timed from outside; a Worker's clock
// stands still during CPU work. The gateway bench times stages too, but
// only inside whole tool calls, behind an upstream and a Durable Object.
//   GET /                       answers at once (the baseline)
//   GET /stages?code=C&stage=S&n=N
//                               runs N (1-32) stages S of C, one after another
//   GET /bare?code=C&stage=S&n=N
//                               the same hook code in a bare engine (bare.ts):
//                               the floor under a stage on this machine
//   GET /plugins?via=V          four plugins' tool.execute.before, then their
//                               after: through the plugin runner (V=runner, as
//                               the gateway calls them) or as bare sandbox
//                               invocations (V=sandbox), which tells the
//                               runner's own cost from the sandbox's; V=bare
//                               runs the same hooks in bare engines (bare.ts)
import { DEFAULT_CONFIG } from "../../shared/config/schema";
import { exportPath } from "../../shared/files/exports";
import { REQUEST_HOOK_EXTENSIONS } from "../../shared/llm/hook-extensions";
import type { DeployedPlugin } from "../../shared/plugins/discovery";
import { runPluginHook, type PluginEnv } from "../../shared/plugins/run";
import { runModuleExport } from "../../shared/sandbox";
import { createAdapterSandbox } from "../../shared/sandbox/adapter";
import { workerdEngines } from "../../shared/sandbox/wasm-workerd";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
// The package's own build, without the loop meter: the engine alone.
import packageWasm from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
import { bareHook, type BareHook } from "./bare";
import { benchPluginCode, ECHO_CALL, ECHO_HOOKS } from "./echo-call";
import { ADAPTER_2KB, adapterCode, BENCH_CONTEXT as context } from "../../test/shared/sandbox/code";

const sandbox = createAdapterSandbox(workerdEngines);

const CODES: Readonly<Record<string, string>> = {
  trivial: adapterCode(`
    before({ arguments: args }) { return { action: "continue", arguments: args }; },
    after({ result }) { return { action: "return", result }; },
  `),
  "2kb": ADAPTER_2KB,
};

const input = {
  arguments: { query: "The Workers release", limit: 5 },
  result: {
    items: [
      { title: "Release notes matching workers release", score: 0.9 },
      { title: "Older release", score: 0.4 },
    ],
  },
};
const MAX_STAGES = 32;

/** bench:llm's plugins, compiled. */
const PLUGINS: DeployedPlugin[] = [1, 2, 3, 4].map((n) => ({
  name: `p${n}`,
  path: `plugins/p${n}.ts`,
  revisionId: `rev_p${n}`,
  hooks: ["chat.params", "tool.execute.before", "tool.execute.after"],
  code: benchPluginCode(n),
}));
/** The runner reads nothing from its bindings unless a hook calls `rayrun.*`, which these never do. */
const NO_BINDINGS = {} as PluginEnv;

async function pluginsThroughRunner(): Promise<void> {
  for (const [hook, value] of ECHO_HOOKS) {
    const ran = await runPluginHook(NO_BINDINGS, {
      workspaceUid: ECHO_CALL.workspaceUid,
      requestId: ECHO_CALL.requestId,
      hook,
      value,
      plugins: PLUGINS,
      config: DEFAULT_CONFIG,
    });
    if (ran.records.some((record) => record.outcome !== "continue" && record.outcome !== "passed"))
      throw new Error(JSON.stringify(ran.records));
  }
}

/** The bare engine and each code's bare hook, made on first use. */
let bareEngine: Promise<Map<string, BareHook>> | null = null;
function bareHooks(): Promise<Map<string, BareHook>> {
  bareEngine ??= newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule: packageWasm })).then(
    (engine) => {
      const hooks = new Map<string, BareHook>();
      for (const [name, code] of Object.entries(CODES)) hooks.set(name, bareHook(engine, code));
      for (const plugin of PLUGINS) hooks.set(plugin.name, bareHook(engine, plugin.code));
      return hooks;
    },
  );
  return bareEngine;
}

async function pluginsBare(): Promise<void> {
  const hooks = await bareHooks();
  for (const [hook, value] of ECHO_HOOKS) {
    let current: unknown = value;
    for (const plugin of PLUGINS) {
      const [returned] = JSON.parse(
        hooks.get(plugin.name)?.call(["default", hook], JSON.stringify(current)) ?? "[null]",
      ) as [unknown];
      if (returned !== null) current = returned;
    }
  }
}

async function pluginsInSandbox(): Promise<void> {
  for (const [hook, value] of ECHO_HOOKS) {
    for (const plugin of PLUGINS) {
      const report = await runModuleExport({
        code: plugin.code,
        exportPath: exportPath("plugin", hook),
        input: value,
        nowMs: Date.now(),
        seed: `req_bench:${plugin.name}:${hook}`,
        extensions: REQUEST_HOOK_EXTENSIONS,
      });
      if (!report.outcome.ok) throw new Error(JSON.stringify(report.outcome.error));
    }
  }
}

export default {
  async fetch(request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/") return new Response("ok");
    if (url.pathname === "/plugins") {
      const via = url.searchParams.get("via");
      await (via === "runner" ? pluginsThroughRunner() : via === "bare" ? pluginsBare() : pluginsInSandbox());
      return new Response("ok");
    }
    const code = CODES[url.searchParams.get("code") ?? ""];
    if (code === undefined) return new Response("unknown code", { status: 400 });
    if (url.pathname !== "/stages" && url.pathname !== "/bare")
      return new Response("not found", { status: 404 });
    const stage = url.searchParams.get("stage") === "after" ? "after" : "before";
    const n = Math.max(1, Math.min(MAX_STAGES, Number(url.searchParams.get("n")) || 1));
    if (url.pathname === "/bare") {
      const hook = (await bareHooks()).get(url.searchParams.get("code") ?? "");
      if (hook === undefined) return new Response("unknown code", { status: 400 });
      // What the sandbox's stage hands the hook: the result only to `after`.
      const text = JSON.stringify(
        stage === "after" ? { context, ...input } : { context, arguments: input.arguments },
      );
      let out = "";
      for (let i = 0; i < n; i++) out = hook.call(["default", stage], text);
      return new Response(out);
    }
    for (let i = 0; i < n; i++) {
      const report = await sandbox.runAdapterStage({ code, stage, context, ...input });
      if (!report.outcome.ok) return Response.json(report.outcome.error, { status: 500 });
    }
    return Response.json((await workerdEngines.get()).images?.stats() ?? null);
  },
} satisfies ExportedHandler;
