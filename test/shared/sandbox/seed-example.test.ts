// The product's example adapter behaves as documented.
import { describe, expect, it } from "vitest";
import { inspectAdapter } from "../../../shared/sandbox";
import { runAfter, runBefore, SEED_ADAPTER, testContext, okValue } from "./helpers";

describe("the example adapter", () => {
  it("before builds q from config.prefix and logs 'Preparing search'", async () => {
    const report = await runBefore(SEED_ADAPTER, { query: "workers" });
    expect(okValue(report)).toEqual({ action: "continue", arguments: { q: "release: workers" } });
    expect(report.logs).toEqual([{ level: "info", message: "Preparing search", data: { query: "workers" } }]);
    expect(report.fuelUsed).toBeGreaterThan(0);
    expect(report.fuelUsed).toBeLessThan(10_000);
  });

  it("before uses an empty prefix when config has none", async () => {
    const report = await runBefore(SEED_ADAPTER, { query: "x" }, testContext({ config: {} }));
    expect(okValue(report)).toEqual({ action: "continue", arguments: { q: "x" } });
  });

  it("after returns { items }", async () => {
    const report = await runAfter(SEED_ADAPTER, { items: [{ id: 1 }, { id: 2 }], total: 2 });
    expect(okValue(report)).toEqual({ action: "return", result: { items: [{ id: 1 }, { id: 2 }] } });
  });

  it("inspection reads apiVersion, publicContract and stages", async () => {
    const result = await inspectAdapter(SEED_ADAPTER);
    expect(result).toEqual({
      ok: true,
      value: {
        apiVersion: "rayrun.hooks/v1",
        stages: ["before", "after"],
        publicContract: {
          description: "Search public release notes",
          inputSchema: {
            type: "object",
            properties: { query: { type: "string" } },
            required: ["query"],
            additionalProperties: false,
          },
        },
      },
    });
  });

  it("the same call burns the same fuel every time", async () => {
    const first = await runBefore(SEED_ADAPTER, { query: "a" });
    const second = await runBefore(SEED_ADAPTER, { query: "a" });
    expect(second.fuelUsed).toBe(first.fuelUsed);
  });
});
