// One dev server for the whole reliability suite (both Workers under `wrangler
// dev`, the demo upstream and the fake LLM provider), started once: starting
// wrangler takes about a minute on a 2-core machine, longer than most files run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDevServer } from "../bench/dev-server.ts";

export interface ReliabilityServer {
  url: string;
  port: number;
  upstreamUrl: string;
  providerUrl: string;
  bootstrapKey: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityServer: ReliabilityServer;
  }
}

/** Tries a few random ports: another run (or `npm start`) may hold one of the six a server needs. */
async function start(
  dir: string,
): Promise<{ server: Awaited<ReturnType<typeof startDevServer>>; port: number }> {
  for (let attempt = 1; ; attempt++) {
    // A range of its own, away from `npm start` (8787) and the CLI tests (18000–19999).
    const port = 21_000 + Math.floor(Math.random() * 2000);
    try {
      const server = await startDevServer({
        port,
        stateDir: join(dir, "state"),
        devVarsPath: join(dir, ".dev.vars"),
        stdio: process.env.RELIABILITY_STDIO === "inherit" ? "inherit" : "ignore",
        // Without the trace collector and request log lines, as the benches run it:
        // both cost CPU per request that is not the product's.
        observability: false,
        logLevel: "warn",
      });
      return { server, port };
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || error.name !== "PortInUseError") throw error;
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "rayrun-reliability-"));
  const started = performance.now();
  const { server, port } = await start(dir);
  console.log(
    `reliability: wrangler dev on ${server.url} ready in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  project.provide("reliabilityServer", {
    url: server.url,
    port,
    upstreamUrl: server.upstreamUrl,
    providerUrl: server.providerUrl,
    bootstrapKey: server.key,
  });
  return async () => {
    // stop() waits for the processes where the script supports it; awaiting a plain return is harmless.
    await Promise.resolve<unknown>(server.stop());
    rmSync(dir, { recursive: true, force: true });
  };
}
