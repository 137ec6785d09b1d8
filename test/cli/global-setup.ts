import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// @ts-expect-error -- plain ESM script without type declarations
import { startDevServer } from "../../scripts/dev-server.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    serverUrl: string;
    upstreamUrl: string;
    /** The fake LLM provider's root (dev/provider): `<providerUrl>/<id>/…` is one provider. */
    providerUrl: string;
    bootstrapKey: string;
  }
}

interface DevServer {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  stop(): void;
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "rayrun-cli-"));
  // A port of its own so a developer's `npm start` on 8787 is left alone.
  const port = 18_000 + Math.floor(Math.random() * 2000);
  const server = (await startDevServer({
    port,
    stateDir: join(dir, "state"),
    devVarsPath: join(dir, ".dev.vars"),
    stdio: "ignore",
    observability: false,
    logLevel: "warn",
  })) as DevServer;
  project.provide("serverUrl", server.url);
  project.provide("upstreamUrl", server.upstreamUrl);
  project.provide("providerUrl", server.providerUrl);
  project.provide("bootstrapKey", server.key);
  return () => {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
