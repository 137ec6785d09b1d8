// bench:sandbox's `plugins` section: bench:llm's four plugins, each hook a few
// lines returning its payload, run as the MCP path runs them (four
// `tool.execute.before`, then four `after`, one invocation after another) in
// the sandbox and in bare engines (dev/sandbox-bench/bare.ts: the same hook
// code in a QuickJS context of the package's build with nothing of the
// sandbox around it), the two taking turns round by round. Each invocation
// in the sandbox restores its code's image, so this is where the sandbox's
// own per-invocation cost shows most plainly.
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { exportPath } from "../shared/files/exports";
import type { JsonObject } from "../shared/json";
import { REQUEST_HOOK_EXTENSIONS } from "../shared/llm/hook-extensions";
import type { EngineProvider } from "../shared/sandbox/image/provider";
import { createModuleSandbox } from "../shared/sandbox/module-exports";
import { benchPluginCode, ECHO_HOOKS } from "../dev/sandbox-bench/echo-call";
import { bareHook } from "../dev/sandbox-bench/bare";
import { shuffled, summarize } from "./stats";

/** Milliseconds as whole microseconds: an invocation is tens of them. */
const us = (ms: number): string => (ms * 1000).toFixed(0);

const CODES = [1, 2, 3, 4].map(benchPluginCode);
const INVOCATIONS = ECHO_HOOKS.length * CODES.length;

export async function pluginsSection(engines: EngineProvider, rounds: number): Promise<void> {
  const sandbox = createModuleSandbox(engines);
  const inSandbox = async (round: number): Promise<void> => {
    for (const [hook, value] of ECHO_HOOKS) {
      let current = value;
      for (const [index, code] of CODES.entries()) {
        const report = await sandbox.runModuleExport({
          code,
          exportPath: exportPath("plugin", hook),
          input: current,
          nowMs: Date.now(),
          seed: `req_${round}:p${index}:${hook}`,
          extensions: REQUEST_HOOK_EXTENSIONS,
        });
        if (!report.outcome.ok) throw new Error(JSON.stringify(report.outcome.error));
        const returned = report.outcome.value.value;
        if (returned !== undefined) current = returned as JsonObject;
      }
    }
  };
  const engine = await newQuickJSWASMModuleFromVariant(releaseSync);
  const bare = CODES.map((code) => bareHook(engine, code));
  const inBare = (): Promise<void> => {
    for (const [hook, value] of ECHO_HOOKS) {
      let current: unknown = value;
      for (const plugin of bare) {
        const [returned] = JSON.parse(plugin.call(["default", hook], JSON.stringify(current))) as [unknown];
        if (returned !== null) current = returned;
      }
    }
    return Promise.resolve();
  };
  const cases: Record<string, (round: number) => Promise<void>> = {
    "in the sandbox": inSandbox,
    "in bare engines": inBare,
  };
  const wall = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
  const cpu = new Map(Object.keys(cases).map((name) => [name, 0]));
  for (let round = -50; round < rounds; round++) {
    for (const name of shuffled(Object.keys(cases))) {
      const work = cases[name];
      if (work === undefined) continue;
      const startedCpu = process.cpuUsage();
      const started = performance.now();
      await work(round);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(startedCpu);
      if (round < 0) continue;
      wall.get(name)?.push(elapsed / INVOCATIONS);
      cpu.set(name, (cpu.get(name) ?? 0) + (used.user + used.system) / 1000 / INVOCATIONS);
    }
  }
  for (const plugin of bare) plugin.dispose();
  console.log(
    `four plugins' tool.execute.before, then after, one invocation after another, ${rounds} rounds, interleaved (µs per invocation)`,
  );
  console.log(`${"".padEnd(34)} ${"p50".padStart(8)} ${"p90".padStart(8)} ${"p99".padStart(8)}  CPU mean`);
  for (const [name, samples] of wall) {
    const s = summarize(samples);
    const cpuMean = (cpu.get(name) ?? 0) / samples.length;
    console.log(
      `${name.padEnd(34)} ${us(s.p50).padStart(8)} ${us(s.p90).padStart(8)} ${us(s.p99).padStart(8)}  ${us(cpuMean).padStart(8)}`,
    );
  }
  const sandboxP50 = summarize(wall.get("in the sandbox") ?? []).p50;
  const bareP50 = summarize(wall.get("in bare engines") ?? []).p50;
  console.log(
    `=> the sandbox over a bare engine: ${us(sandboxP50 - bareP50)} µs per invocation at p50 (ratio ${(sandboxP50 / bareP50).toFixed(1)}×)\n`,
  );
}
