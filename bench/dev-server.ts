// The dev server the wrangler benches start (scripts/dev-server.mjs: both
// Workers, the demo upstream and the fake LLM provider), typed once here: the
// script is plain .mjs without declarations.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface DevServer {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  stop: () => void;
}

export interface DevServerOptions {
  port: number;
  stateDir: string;
  devVarsPath: string;
  stdio?: "inherit" | "ignore";
  observability?: boolean;
  logLevel?: "info" | "warn";
  envFiles?: string[];
}

const devServerModule: string = "../scripts/dev-server.mjs";
const loaded = (await import(devServerModule)) as {
  startDevServer: (options: DevServerOptions) => Promise<DevServer>;
};

export const startDevServer = loaded.startDevServer;

/** The JSON-RPC message in an MCP response body, sent as JSON or as one SSE event. */
export function rpcMessage(body: string): {
  result?: { isError?: boolean; structuredContent?: unknown };
  error?: unknown;
} {
  const text = body.startsWith("{") ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? "{}");
  return JSON.parse(text) as { result?: { isError?: boolean }; error?: unknown };
}

/**
 * Starts the dev server on `port` with a throw-away state directory, without
 * wrangler's trace collector and request log lines (dev tooling that costs CPU
 * per request), runs `work`, then stops it and removes the state.
 */
export async function withBenchServer(
  name: string,
  port: number,
  work: (server: DevServer) => Promise<void>,
): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), `rayrun-bench-${name}-`));
  const server = await startDevServer({
    port,
    stateDir,
    devVarsPath: join(stateDir, ".dev.vars"),
    stdio: (process.env.BENCH_STDIO as "inherit" | undefined) ?? "ignore",
    observability: false,
    logLevel: "warn",
  });
  try {
    await work(server);
  } finally {
    server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
