// Fuel calibration for FUEL_PER_MS (docs/request-hooks.md, "Fuel
// calibration"): runs CPU-bound hooks to the end of a fixed fuel budget in
// workerd and logs fuel against wall time. Nothing here asserts time (it
// depends on the machine); what is asserted is that the budget, and so the
// point where a hook stops, is exact and repeatable.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../shared/limits";
import { FUEL_PER_MS } from "../../../shared/llm/host-calls";
import { REQUEST_HOOK_EXTENSIONS } from "../../../shared/llm/hook-extensions";
import { runModuleExport } from "../../../shared/sandbox";
import { moduleCode } from "../sandbox/helpers";
import { deployLib, failed, hookConfig, hookWorkspace, runHook, setConfig } from "./harness";

/** CPU-bound bodies: calls, built-ins, strings, JSON and allocation, each an endless loop. */
const WORKLOADS: Record<string, string> = {
  "recursive calls": `const f = (n) => (n < 2 ? n : f(n - 1) + f(n - 2)); for (;;) f(20);`,
  "sort 1000 numbers": `for (;;) { const a = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000); a.sort((x, y) => x - y); }`,
  "tight loop": `for (;;) {}`,
  "filter tools (seed example)": `const tools = Array.from({ length: 200 }, (_, i) => ({ name: "tool_" + i })); for (;;) tools.filter((t) => t.name === "fs_read" || t.name === "fs_write");`,
  "Map writes": `const m = new Map(); for (let i = 0; ; i++) m.set(i % 5000, i);`,
  "string building": `let s = ""; for (let i = 0; ; i++) s = (s + i).slice(-100);`,
  "JSON round trip of 50 messages": `const r = { messages: Array.from({ length: 50 }, (_, i) => ({ role: "user", content: "message " + i })) }; for (;;) JSON.parse(JSON.stringify(r));`,
  arithmetic: `let x = 0; for (let i = 0; ; i++) x = (x * 31 + i) % 1000003;`,
  "allocation churn": `let keep; for (let i = 0; ; i++) keep = { a: i, b: [i, i + 1], c: "x" + i };`,
};

const BUDGET = LIMITS.requestHookTimeoutMs * FUEL_PER_MS;

async function burn(body: string, fuel: number) {
  const started = performance.now();
  const report = await runModuleExport({
    code: moduleCode(`return { transform() { ${body} } };`),
    exportPath: ["transform"],
    input: null,
    nowMs: 0,
    seed: "calibration",
    extensions: REQUEST_HOOK_EXTENSIONS,
    fuel,
  });
  return { report, ms: performance.now() - started };
}

describe("fuel calibration (logs fuel against wall time; asserts only fuel)", () => {
  it(`CPU-bound hooks stop at exactly their budget (${BUDGET} units = the default timeout_ms)`, async () => {
    const rows: string[] = [];
    for (const [name, body] of Object.entries(WORKLOADS)) {
      await burn(body, BUDGET / 10); // warm-up
      const runs = [await burn(body, BUDGET), await burn(body, BUDGET)];
      for (const { report } of runs) {
        expect(report.outcome).toMatchObject({ ok: false, error: { code: "hook_timeout" } });
        expect(report.fuelUsed).toBeGreaterThanOrEqual(BUDGET);
        expect(report.fuelUsed).toBeLessThan(BUDGET * 1.001);
      }
      const ms = Math.min(...runs.map((r) => r.ms));
      rows.push(
        `${name.padEnd(32)} ${ms.toFixed(0).padStart(6)} ms  ${Math.round(BUDGET / ms)
          .toString()
          .padStart(7)} units/ms  ${(ms / LIMITS.requestHookTimeoutMs).toFixed(3)} of the timeout`,
      );
    }
    console.log(
      `fuel calibration: ${BUDGET} units (timeout_ms ${LIMITS.requestHookTimeoutMs} × FUEL_PER_MS ${FUEL_PER_MS})\n` +
        rows.join("\n"),
    );
  });

  it("the same hook burns the same fuel on every run", async () => {
    const body = `let x = 0; for (let i = 0; i < 20000; i++) x += i % 7; return x;`;
    const first = await burn(body, BUDGET);
    const second = await burn(body, BUDGET);
    expect(first.report.outcome.ok).toBe(true);
    expect(second.report.fuelUsed).toBe(first.report.fuelUsed);
  });

  it("end to end: a tight-loop request hook with timeout_ms 1000 stops at 1000 × FUEL_PER_MS units", async () => {
    const w = await hookWorkspace();
    await deployLib(w, "lib/request-policy.ts", `export function transform() { for (;;) {} }`);
    await setConfig(w, { pre_llm_hook: hookConfig({ timeout_ms: 1000 }) });
    const failure = failed(await runHook(w, "main"));
    expect(failure.code).toBe("request_hook_timeout");
    expect(failure.run.fuelUsed).toBeGreaterThanOrEqual(1000 * FUEL_PER_MS);
    console.log(
      `end to end: timeout_ms 1000 → ${Math.round(failure.run.fuelUsed)} units in ${failure.run.durationMs} ms ` +
        `(including the revision lookup)`,
    );
  });
});
