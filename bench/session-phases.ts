// Where a pre-warmed session's build time goes (bench:sandbox prints it): the
// warm pool builds two of these after every hooked tool call, off the call's
// critical path but on the isolate's CPU, so the next request pays for them.
import { buildPrelude, adapterExtension } from "../shared/sandbox/prelude";
import { Session } from "../shared/sandbox/session";
import { LIMITS } from "../shared/limits";
import { ADAPTER_2KB } from "../test/shared/sandbox/code";
import { nodeEngines } from "./node-engine";
import { ms, summarize } from "./stats";

export async function sessionPhases(runs: number): Promise<void> {
  const engine = await nodeEngines.get();
  const prelude = buildPrelude([adapterExtension]);
  const phases: Record<string, number[]> = {
    "runtime + context": [],
    "prelude: compile only": [],
    "session open (prelude compile + run)": [],
    "module top level (~2 KB adapter)": [],
    dispose: [],
  };
  const timed = <T>(phase: string, work: () => T): T => {
    const started = performance.now();
    const value = work();
    phases[phase]?.push(performance.now() - started);
    return value;
  };
  for (let i = 0; i < runs; i++) {
    const runtime = timed("runtime + context", () => engine.module.newRuntime());
    const context = runtime.newContext();
    const compiled = timed("prelude: compile only", () =>
      context.evalCode(prelude, "prelude.js", { type: "global", strict: true, compileOnly: true }),
    );
    if (compiled.error) compiled.error.dispose();
    else compiled.value.dispose();
    context.dispose();
    runtime.dispose();
    const session = timed("session open (prelude compile + run)", () =>
      Session.open(engine, { extensions: [adapterExtension], fuel: LIMITS.fuelPerInvocation }),
    );
    timed("module top level (~2 KB adapter)", () => {
      session.begin(0, "phases", LIMITS.fuelPerInvocation, "module");
      session.evaluate(ADAPTER_2KB);
      session.finish();
    });
    timed("dispose", () => session.close());
  }
  console.log(`session build phases (${prelude.length} chars of prelude, ${runs} builds, p50 / p99 ms)`);
  for (const [phase, samples] of Object.entries(phases)) {
    const s = summarize(samples);
    console.log(`  ${phase.padEnd(40)} ${ms(s.p50).padStart(7)} ${ms(s.p99).padStart(7)}`);
  }
  console.log("");
}
