// Bounding captured details before they are stored.
import { describe, expect, it } from "vitest";
import { boundDetails, DETAILS_MAX_BYTES, UNSERIALISABLE_KEY } from "../../../shared/logs/details";
import type { RunDetails } from "../../../shared/db/run-types";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe("boundDetails", () => {
  it("a payload that cannot be serialised is replaced by a marker saying why; the rest is kept", () => {
    const cycle: Record<string, unknown> = { text: "x" };
    cycle.self = cycle;
    const bounded = boundDetails({
      arguments: cycle as never,
      result: { ok: true },
      logs: [
        { level: "info", message: "kept", data: { big: 1n } as never },
        { level: "info", message: "plain", data: { n: 1 } },
      ],
    });
    expect(bounded.result).toEqual({ ok: true });
    expect(bounded.arguments).toEqual({
      [UNSERIALISABLE_KEY]: expect.stringMatching(/^not stored, TypeError: .*circular/i),
    });
    expect(bounded.logs?.[0]).toEqual({
      level: "info",
      message: "kept",
      data: { [UNSERIALISABLE_KEY]: expect.stringMatching(/^not stored, TypeError: .*BigInt/i) },
    });
    expect(bounded.logs?.[1]).toEqual({ level: "info", message: "plain", data: { n: 1 } });
    expect(() => JSON.stringify(bounded)).not.toThrow();
  });

  it("details within the bound are stored unchanged", () => {
    const details: RunDetails = { reason: "blocked", message: "no", logs: [{ level: "warn", message: "w" }] };
    expect(boundDetails(details)).toBe(details);
  });

  it("details exactly at the bound are unchanged; one byte over are truncated", () => {
    const base = bytes({ message: "" });
    const at = { message: "a".repeat(DETAILS_MAX_BYTES - base) };
    expect(bytes(at)).toBe(DETAILS_MAX_BYTES);
    expect(boundDetails(at)).toBe(at);
    const over = { message: "a".repeat(DETAILS_MAX_BYTES - base + 1) };
    const bounded = boundDetails(over);
    expect(bounded.truncated?.omitted).toEqual(["message"]);
    expect(bytes(bounded)).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
  });

  it("oversized result and arguments are dropped before any log entry", () => {
    const bounded = boundDetails({
      arguments: { q: "a".repeat(10_000) },
      result: { items: "b".repeat(10_000) },
      logs: [{ level: "info", message: "kept", data: { n: 1 } }],
    });
    expect(bounded.result).toBeUndefined();
    expect(bounded.arguments).toEqual({ q: "a".repeat(10_000) });
    expect(bounded.logs).toEqual([{ level: "info", message: "kept", data: { n: 1 } }]);
    expect(bounded.truncated).toEqual({ omitted: ["result"], logsDropped: 0 });
  });

  it("log data goes from the last entry back, then entries themselves, counted", () => {
    const logs = Array.from({ length: 40 }, (_, i) => ({
      level: "debug" as const,
      message: `m${i} ${"x".repeat(1000)}`,
      data: "y".repeat(1000),
    }));
    const bounded = boundDetails({ logs });
    expect(bytes(bounded)).toBeLessThanOrEqual(DETAILS_MAX_BYTES);
    expect(bounded.truncated?.omitted).toContain("logs.data");
    expect(bounded.truncated?.logsDropped).toBeGreaterThan(0);
    expect(bounded.logs?.[0]?.message).toBe(logs[0]?.message);
    expect((bounded.logs?.length ?? 0) + (bounded.truncated?.logsDropped ?? 0)).toBe(40);
    // The input is not changed.
    expect(logs[39]?.data).toBe("y".repeat(1000));
  });

  it("long texts are shortened with an ellipsis", () => {
    const bounded = boundDetails({ reason: "r".repeat(20_000), error: "e".repeat(20_000) });
    expect(bounded.reason).toHaveLength(256);
    expect(bounded.reason?.endsWith("…")).toBe(true);
    expect(bounded.error).toHaveLength(2048);
    expect(bounded.truncated?.omitted).toEqual(["reason", "error"]);
  });
});
