// How the plugin pipeline works and what happens when a hook misbehaves: one test per
// rule, with plugins deployed through the files API and run by runPluginHook.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { HOOK_THREW, exceeded } from "../../../shared/plugins/run";
import { FUEL_PER_MS } from "../../../shared/llm/host-calls";
import { FUEL, type PreludeExtension } from "../../../shared/sandbox";
import {
  BEFORE_PROBE,
  deployPlugin,
  payload,
  pluginWorkspace,
  plugins,
  runHook,
  setConfig,
  TRACER,
} from "./pipeline-harness";

const before = { probe: BEFORE_PROBE };

describe("plugins run in order", () => {
  it("config-listed plugins first in list order, then auto-discovered ones alphabetically", async () => {
    const w = await pluginWorkspace();
    for (const name of ["zeta", "alpha", "mid", "beta"]) await deployPlugin(w, name, TRACER(name), before);
    // Only active deployments count.
    await deployPlugin(w, "aardvark", TRACER("aardvark"), { ...before, channel: "shadow" });
    // A listed name with no active plugin is skipped.
    await setConfig(w, { plugins: ["mid", "ghost", "zeta"] });

    const listed = await plugins(w);
    expect(listed.map((p) => p.name)).toEqual(["mid", "zeta", "alpha", "beta"]);
    expect(listed[0]).toMatchObject({ path: "plugins/mid.ts", hooks: ["tool.execute.before"] });
    expect(listed[0]?.code.length).toBeGreaterThan(0);

    const { value, records } = await runHook(w, "tool.execute.before", payload());
    expect(value.args).toEqual({ trace: ["mid", "zeta", "alpha", "beta"] });
    expect(records.map((r) => [r.plugin, r.outcome])).toEqual([
      ["mid", "continue"],
      ["zeta", "continue"],
      ["alpha", "continue"],
      ["beta", "continue"],
    ]);
  });

  it("without a plugins list every active plugin runs alphabetically", async () => {
    const w = await pluginWorkspace();
    for (const name of ["c", "a", "b"]) await deployPlugin(w, name, TRACER(name), before);
    const { value } = await runHook(w, "tool.execute.before", payload());
    expect(value.args).toEqual({ trace: ["a", "b", "c"] });
  });
});

describe("output threads forward", () => {
  it("each plugin receives the value the previous one returned; the last return is the result", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-double",
      `export default {
        "tool.execute.before": (input: any) => ({ ...input, args: { ...input.args, n: (input.args.n ?? 1) * 2 } }),
      };`,
      before,
    );
    await deployPlugin(
      w,
      "b-add",
      `export default {
        "tool.execute.before": (input: any) => ({ ...input, args: { ...input.args, n: (input.args.n ?? 0) + 3, sawN: input.args.n ?? null } }),
      };`,
      before,
    );
    const { value, records } = await runHook(w, "tool.execute.before", payload({ n: 5 }));
    expect(value).toEqual({ ...payload(), args: { n: 13, sawN: 10 } });
    expect(records[1]?.details?.arguments).toEqual({ ...payload(), args: { n: 10 } });
  });
});

describe("undefined means no change", () => {
  it("an observing plugin returns nothing: the value passes through untouched, logged as passed", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "observer",
      `export default {
        "chat.params": (params: { temperature?: number }) => {
          const seen = params.temperature;
          void seen;
          return undefined;
        },
      };`,
    );
    await deployPlugin(w, "quiet", `export default { "chat.params": () => {} };`);
    const params = { model: "gpt-4o", temperature: 0.7, options: {} };
    const { value, records } = await runHook(w, "chat.params", params);
    expect(value).toBe(params);
    expect(records.map((r) => [r.plugin, r.outcome, r.code])).toEqual([
      ["observer", "passed", null],
      ["quiet", "passed", null],
    ]);
  });
});

describe("return the whole payload, not a fragment", () => {
  it("a fragment replaces the whole payload (toolID and ctx are dropped) and the record carries a warning", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "fragment",
      `export default { "tool.execute.before": (input: any) => ({ args: { ...input.args, timeout: 5000 } }) };`,
      before,
    );
    const { value, records } = await runHook(w, "tool.execute.before", payload({ cmd: "ls" }));
    expect(value).toEqual({ args: { cmd: "ls", timeout: 5000 } });
    expect(value).not.toHaveProperty("toolID");
    expect(value).not.toHaveProperty("ctx");
    expect(records[0]?.outcome).toBe("continue");
    expect(records[0]?.details?.logs).toContainEqual({
      level: "warn",
      message: expect.stringContaining("without toolID"),
    });
  });

  it("spreading the input back keeps every field and warns about nothing", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "spread",
      `export default {
        "tool.execute.before": (input: any) => ({ ...input, args: { ...input.args, timeout: 5000 } }),
      };`,
      before,
    );
    const { value, records } = await runHook(w, "tool.execute.before", payload({ cmd: "ls" }), {
      toolName: "shell",
      toolUid: "tool_123",
    });
    expect(value).toEqual({ ...payload(), args: { cmd: "ls", timeout: 5000 } });
    expect(records[0]?.details?.logs).toEqual([]);
    expect(records[0]).toMatchObject({
      kind: "plugin",
      target: "file:plugins/spread.ts",
      stage: "tool.execute.before",
      plugin: "spread",
      toolName: "shell",
      toolUid: "tool_123",
      channel: "active",
    });
  });
});

describe("sync or async, both fine", () => {
  it("async hooks are awaited before the next plugin runs", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-async",
      `export default {
        "tool.execute.before": async (input: any) => {
          await null;
          await new Promise((resolve) => resolve(undefined));
          return { ...input, args: { ...input.args, trace: [...(input.args.trace ?? []), "async"] } };
        },
      };`,
      before,
    );
    await deployPlugin(w, "b-sync", TRACER("sync"), before);
    await deployPlugin(
      w,
      "c-async",
      `export default {
        "tool.execute.before": async (input: any) => {
          await Promise.resolve();
          return { ...input, args: { ...input.args, trace: [...(input.args.trace ?? []), "async-again"] } };
        },
      };`,
      before,
    );
    const { value, records } = await runHook(w, "tool.execute.before", payload());
    expect(value.args).toEqual({ trace: ["async", "sync", "async-again"] });
    expect(records.every((r) => r.outcome === "continue")).toBe(true);
  });
});

describe("when a hook misbehaves", () => {
  it("a throwing plugin between two working ones: its contribution is dropped, the others' stay, logged as plugin: hook threw", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(w, "a-first", TRACER("first"), before);
    await deployPlugin(
      w,
      "b-throws",
      `export default {
        "tool.execute.before": (input: any) => {
          if (input.toolID === "probe") return undefined;
          input.args.trace.push("half-done");
          throw new Error("policy store unreachable");
        },
      };`,
      before,
    );
    await deployPlugin(w, "c-last", TRACER("last"), before);
    const { value, records } = await runHook(w, "tool.execute.before", payload());
    // The pipeline continues from the pre-throw value: no "half-done".
    expect(value).toEqual({ ...payload(), args: { trace: ["first", "last"] } });
    expect(records.map((r) => r.outcome)).toEqual(["continue", "threw", "continue"]);
    const threw = records[1];
    expect(threw).toMatchObject({ plugin: "b-throws", code: "hook_threw", stage: "tool.execute.before" });
    expect(threw?.details?.error).toContain(HOOK_THREW);
    expect(threw?.details?.error).toContain("b-throws");
    expect(threw?.details?.error).toContain("tool.execute.before");
    expect(threw?.details?.error).toContain("policy store unreachable");
  });

  it("a return that is not JSON counts as a throw", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "bad-return",
      `export default {
        "tool.execute.before": (input: any) => (input.toolID === "probe" ? undefined : { ...input, when: () => 1 }),
      };`,
      before,
    );
    await deployPlugin(w, "next", TRACER("next"), before);
    const { value, records } = await runHook(w, "tool.execute.before", payload());
    expect(value.args).toEqual({ trace: ["next"] });
    expect(records[0]).toMatchObject({ outcome: "threw", code: "hook_invalid_return" });
    expect(records[0]?.details?.error).toContain(HOOK_THREW);
  });

  it(`a CPU-bound plugin runs out of its ${LIMITS.pluginHookTimeoutMs} ms as fuel: abandoned, later plugins still run`, async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-spins",
      `export default {
        "tool.execute.before": (input: any) => {
          if (input.toolID === "probe") return undefined;
          for (;;) {}
        },
      };`,
      before,
    );
    await deployPlugin(w, "b-after", TRACER("after"), before);
    const { value, records } = await runHook(w, "tool.execute.before", payload());
    expect(value).toEqual({ ...payload(), args: { trace: ["after"] } });
    expect(records[0]).toMatchObject({ plugin: "a-spins", outcome: "abandoned", code: "hook_timeout" });
    expect(records[0]?.details?.error).toContain(exceeded(5000));
    expect(records[0]?.details?.error).toContain("exceeded 5000ms; dropping its contribution");
    expect(records[0]?.fuelUsed).toBeGreaterThanOrEqual(LIMITS.pluginHookTimeoutMs * 200);
  });

  it(`a plugin just under its ${LIMITS.pluginHookTimeoutMs} ms of fuel passes; just over is abandoned`, async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "loops",
      `export default {
        "tool.execute.before": (input: any) => {
          let x = 0;
          for (let i = 0; i < (input.args.n ?? 0); i++) x++;
          return { ...input, args: { ...input.args, x } };
        },
      };`,
      before,
    );
    const run = (n: number) => runHook(w, "tool.execute.before", payload({ n }));
    const small = (await run(10_000)).records[0]?.fuelUsed ?? 0;
    const perIteration = (((await run(20_000)).records[0]?.fuelUsed ?? 0) - small) / 10_000;
    const fixed = small - 10_000 * perIteration;
    const budget = LIMITS.pluginHookTimeoutMs * FUEL_PER_MS;
    // The edge is fuzzy by the poll interval and the lease chunks outstanding:
    // the call's first one, and one more for serialising what the plugin returns.
    const slack = 2 * FUEL.leaseChunk + FUEL.pollInterval;
    const under = Math.floor((budget - fixed - slack) / perIteration);
    const passed = await run(under);
    expect(passed.records[0]).toMatchObject({ plugin: "loops", outcome: "continue" });
    expect(passed.value.args).toEqual({ n: under, x: under });
    expect(passed.records[0]?.fuelUsed).toBeLessThan(budget);
    expect(passed.records[0]?.fuelUsed).toBeGreaterThan(budget - 2 * slack);
    const over = Math.ceil((budget - fixed + slack) / perIteration);
    const failed = await run(over);
    expect(failed.records[0]).toMatchObject({ plugin: "loops", outcome: "abandoned", code: "hook_timeout" });
    expect(failed.records[0]?.details?.error).toContain(
      `the hook used its whole fuel budget (${budget} units)`,
    );
    expect(failed.value).toEqual(payload({ n: over }));
  });

  it("a plugin awaiting a promise nothing can settle is abandoned at once (it would never finish)", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-hangs",
      `export default {
        "tool.execute.before": async (input: any) => {
          if (input.toolID === "probe") return undefined;
          await new Promise(() => {});
          return { ...input, args: { changed: true } };
        },
      };`,
      before,
    );
    await deployPlugin(w, "b-after", TRACER("after"), before);
    const { value, records } = await runHook(w, "tool.execute.before", payload());
    expect(value.args).toEqual({ trace: ["after"] });
    expect(records[0]?.outcome).toBe("abandoned");
    expect(records[0]?.details?.error).toContain("exceeded 5000ms; dropping its contribution");
  });

  // A capability that never answers, lent to the sandbox under a global name.
  const WAIT: PreludeExtension = {
    name: "test-wait",
    source: `defineProp(G, "hostWait", descriptor((v) => callHost("wait", v), false, false, false));`,
  };

  it(`a plugin awaiting a host call longer than ${LIMITS.pluginHookTimeoutMs} ms (wall clock) is abandoned; its result is ignored and later plugins run`, async () => {
    const w = await pluginWorkspace();
    await deployPlugin(
      w,
      "a-waits",
      `declare const hostWait: (v: unknown) => Promise<unknown>;
      export default {
        "tool.execute.before": async (input: any) => {
          if (input.toolID === "probe") return undefined;
          try { await hostWait({}); } catch { /* cut off at the deadline */ }
          return { ...input, args: { late: true } };
        },
      };`,
      before,
    );
    await deployPlugin(w, "b-after", TRACER("after"), before);
    let waits = 0;
    const started = Date.now();
    const { value, records } = await runHook(w, "tool.execute.before", payload(), {
      extensions: [WAIT],
      hostCalls: {
        wait: () => {
          waits++;
          return new Promise(() => {});
        },
      },
    });
    const elapsed = Date.now() - started;
    expect(waits).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(LIMITS.pluginHookTimeoutMs - 50);
    expect(value).toEqual({ ...payload(), args: { trace: ["after"] } });
    expect(records[0]).toMatchObject({ plugin: "a-waits", outcome: "abandoned", code: "hook_timeout" });
    expect(records[0]?.details?.error).toContain("exceeded 5000ms; dropping its contribution");
    expect(records[1]?.outcome).toBe("continue");
  });

  it("plugins without the hook are not run and leave no record", async () => {
    const w = await pluginWorkspace();
    await deployPlugin(w, "params-only", `export default { "chat.params": () => undefined };`);
    await deployPlugin(w, "tracer", TRACER("tracer"), before);
    const { records } = await runHook(w, "tool.execute.before", payload());
    expect(records.map((r) => r.plugin)).toEqual(["tracer"]);
  });
});
