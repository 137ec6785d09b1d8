// The official MCP conformance suite (@modelcontextprotocol/conformance, every
// server scenario: the active ones and the pending ones) against the gateway's `/mcp/{ws}`, with the
// reference upstream (dev/conformance/main.ts) as the workspace's only service:
// what an MCP client sees of a conforming server once the gateway stands
// between them. The CLI cannot send an API key, so it talks to a local
// forwarding proxy that adds one (conformance-proxy.ts). Scenarios the gateway
// does not pass yet are listed, with reasons, in conformance-baseline.yml; the
// CLI fails on any other failure and on a listed scenario that now passes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startForwardingProxy, type ForwardingProxy } from "./conformance-proxy.ts";
import {
  unsuccessfulChecks,
  registerReferenceUpstream,
  runConformanceSuite,
  startReferenceUpstream,
  summaryOf,
  type ConformanceWorkspace,
  type FailedCheck,
  type ReferenceUpstream,
} from "./conformance-setup.ts";
import { server } from "./harness.ts";

const line = (check: FailedCheck): string =>
  `  ${check.scenario} / ${check.id} [${check.status}]: ${check.message.replaceAll("\n", " ").slice(0, 300)}`;

/** The whole suite takes well under 2 minutes; past this the CLI is stopped and the test fails. */
const SUITE_TIMEOUT_MS = 5 * 60_000;

describe("MCP conformance through the gateway", () => {
  let upstream: ReferenceUpstream | undefined;
  let proxy: ForwardingProxy | undefined;
  let outputDir: string | undefined;
  let target: ConformanceWorkspace;
  let mcpUrl = "";

  beforeAll(async () => {
    upstream = await startReferenceUpstream();
    target = await registerReferenceUpstream(upstream.url);
    proxy = await startForwardingProxy({
      target: server().url,
      addHeaders: { authorization: `Bearer ${target.callKey}` },
    });
    mcpUrl = `${proxy.url}${target.mcpPath}`;
    outputDir = mkdtempSync(join(tmpdir(), "rayrun-conformance-"));
  });

  afterAll(async () => {
    // Each step runs even when an earlier one failed: nothing may outlive the file.
    await Promise.allSettled([proxy?.close(), upstream?.stop()]);
    if (outputDir !== undefined) rmSync(outputDir, { recursive: true, force: true });
  });

  // Without this, a broken setup (proxy, key, service) would read as thirty unrelated scenario failures.
  it("an MCP client of the proxy lists and calls the reference upstream's tools", async () => {
    expect(target.tools).toContain("test_simple_text");
    const client = new Client({ name: "rayrun-conformance-smoke", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(target.tools));
      const result = await client.callTool({ name: "test_simple_text", arguments: {} });
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it(
    "passes every server scenario, but for the baseline's expected failures",
    { timeout: SUITE_TIMEOUT_MS + 60_000 },
    async () => {
      const dir = outputDir ?? "";
      const started = performance.now();
      const run = await runConformanceSuite({ url: mcpUrl, outputDir: dir, timeoutMs: SUITE_TIMEOUT_MS });
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      const checks = unsuccessfulChecks(dir);
      const failed = checks.filter((check) => check.status !== "INFO").map(line);
      const info = checks.filter((check) => check.status === "INFO").map(line);
      const report = [
        summaryOf(run.output),
        ...(failed.length === 0 ? [] : ["", "Checks that did not pass:", ...failed]),
        ...(info.length === 0
          ? []
          : ["", "Informational results (counted as passes by the suite):", ...info]),
      ].join("\n");
      console.log(`\n── MCP conformance through the gateway (${seconds} s) ──\n${report}`);
      const ended = run.timedOut
        ? `timed out after ${SUITE_TIMEOUT_MS} ms`
        : `exit code ${run.exitCode}, signal ${run.signal}`;
      expect(run.exitCode, `conformance CLI: ${ended}\n${report}`).toBe(0);
    },
  );
});
